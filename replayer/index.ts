/**
 * The replayer (DESIGN §6): replays a cache entry with no model through the policed actions and
 * proves its end state, or stops for the agent to take over. See replayer/README.md.
 */
export { checkEndState, type EndCheckInput, type EndCheckResult, type EndCheckScreen } from './end-check.js';
export { matchTarget, type MatchEvidence, type TargetMatch } from './match-target.js';
export {
  DEFAULT_POLL_INTERVAL_MS,
  DEFAULT_WAIT_FOR_TARGET_MS,
  replayStep,
  type ReplayOutcome,
  type ReplayStepOptions,
  type ReplayStopReason,
} from './replay-step.js';
export { matchRoute, type RouteMatch } from './route-match.js';
