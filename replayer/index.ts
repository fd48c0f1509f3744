/**
 * The replayer (DESIGN §6): replays a recorded `act` step with no model through the same
 * policed actions the agent uses, and proves its end state; on divergence it stops with a
 * reason and the prefix that ran, for the agent to take over.
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
