/**
 * The pipeline of one step (DESIGN §3), in the order `AttemptRunner.runStep` runs it: check the
 * call, start the step (instruction, index, executor, limits, session), decide it (refused,
 * replayed by the interceptor, or concluded by the executor), take its end screen, report the
 * verdict, tell the interceptor how it ended, and make its record. Each stage reads and writes
 * the attempt's state (`attempt-state.ts`) and the step's session (`step-session.ts`).
 */
import { E2EError, didYouMean, isE2EError, messageOf } from '../errors/index.js';
import { StepBudget, DEFAULT_TEST_TIMEOUT_MS, limitsFor } from './budgets.js';
import { prepareInstruction, requireInstruction, type PreparedInstruction } from './instruction.js';
import { createPolicedActions } from './policed-actions.js';
import type { StepActions, StepEvidence, StepExecutor, StepInfo, StepKind, StepVerdict } from '../contract/step-contract.js';
import type { FinishedStepView, InterceptedStep, JudgedEvidence, RunnerObservation } from '../contract/step-seams.js';
import type { AgentEntry, AttemptState } from './attempt-state.js';
import { buildStepContext, observerFor } from './step-context.js';
import { isSchema, parseOptions, type RunStepOptions } from './step-options.js';
import type { StepRecord } from './step-record.js';
import { StepSession } from './step-session.js';
import { checkVerdict, statusForCode, stepEvidenceOf } from './verdict.js';
import { NO_HAND_OFF, cacheOf, handOffOf, type HandOff, type Replayed, type StepDecision } from './step-decision.js';

/** A step call, checked: what was asked, of which agent. */
export interface StepCall {
  kind: StepKind;
  /** `agent.act`, … (for messages). */
  method: string;
  text: string;
  options: RunStepOptions;
  agentName: string;
  entry: AgentEntry;
}

/** A started step: its instruction prepared, its executor chosen, its session running. */
export interface StartedStep {
  prepared: PreparedInstruction;
  executor: StepExecutor | undefined;
  session: StepSession;
  /** When the step started (the clock's time). */
  started: number;
}

/** Check a step call before anything runs: instruction, options, agent, no step running, attempt not stopped. */
export function checkCall(attempt: AttemptState, kind: StepKind, instruction: unknown, rawOptions: unknown): StepCall {
  const method = `agent.${kind}`;
  const text = requireInstruction(instruction, method);
  const options = parseOptions(kind, rawOptions, method);
  if (kind === 'extract' && !isSchema(options.schema)) {
    throw new E2EError('INVALID_ARGUMENT', 'agent.extract(question, schema) needs a zod schema as its second argument, e.g. z.object({ total: z.number() }).');
  }
  const agentName = options.agent ?? defaultAgentName(attempt);
  const entry = attempt.options.agents[agentName];
  if (entry === undefined) {
    const names = Object.keys(attempt.options.agents);
    throw new E2EError('INVALID_ARGUMENT', `${method}: no agent named \`${agentName}\`${didYouMean(agentName, names)}; configured agents: ${names.join(', ')}.`);
  }
  if (attempt.current !== undefined && !attempt.current.ended) {
    throw new E2EError('INVALID_STATE', `${method} was called while another step runs; await each agent call before the next.`);
  }
  attempt.deadline.throwIfStopped();
  return { kind, method, text, options, agentName, entry };
}

/** Start the step: its instruction prepared, its index taken, its executor chosen, its session running under its limits. */
export function startStep(attempt: AttemptState, call: StepCall): StartedStep {
  const { kind, entry, options } = call;
  const prepared = prepareInstruction(call.text, options.params, attempt.vault, call.method);
  for (const warning of prepared.warnings) attempt.logger.warn(warning);
  const index = attempt.nextStepIndex();
  const started = attempt.clock.now();
  const executor = executorFor(attempt, kind, entry);
  const viaCustom = entry.executor !== undefined && (kind === 'act' || kind === 'assert');
  const limits = limitsFor(kind, {
    viaExecutor: viaCustom,
    entry: entry.limits,
    call: { maxSteps: options.maxSteps, maxModelCalls: options.maxModelCalls, timeoutMs: options.timeout },
    testTimeoutMs: attempt.options.testTimeoutMs ?? DEFAULT_TEST_TIMEOUT_MS,
    actionTimeoutMs: attempt.options.actionTimeoutMs,
  });
  const info = stepInfo(attempt, kind, index, prepared, options, executor);
  const deadline = attempt.deadline.child(
    limits.timeoutMs,
    () => new E2EError('STEP_TIMEOUT', `The step did not finish within ${formatSeconds(limits.timeoutMs)}; raise \`timeout\` or split the instruction.`),
  );
  const session = new StepSession({ info, budget: new StepBudget(limits), deadline, paramSources: prepared.sources, clock: attempt.clock });
  attempt.current = session;
  // Words a step held for reading in full (a replay's) are that step's.
  attempt.observer.hold([]);
  return { prepared, executor, session, started };
}

function defaultAgentName(attempt: AttemptState): string {
  const names = Object.keys(attempt.options.agents);
  return attempt.options.defaultAgent ?? (names.includes('default') ? 'default' : (names[0] ?? 'default'));
}

function executorFor(attempt: AttemptState, kind: StepKind, entry: AgentEntry): StepExecutor | undefined {
  const builtIn = attempt.options.builtIn;
  if (kind === 'act') return entry.executor ?? builtIn?.executorFor(entry);
  if (kind === 'assert' && entry.executor !== undefined) return entry.executor;
  return builtIn?.judgeFor(entry, kind === 'assert' ? 'assert' : kind);
}

function stepInfo(attempt: AttemptState, kind: StepKind, index: number, prepared: PreparedInstruction, options: RunStepOptions, executor: StepExecutor | undefined): StepInfo {
  const info: StepInfo = { kind, instruction: prepared.instruction, params: prepared.params, index, secrets: prepared.secretNames };
  const purposes = prepared.secretNames.flatMap((name) => {
    const purpose = attempt.vault.purposeOf(name);
    return purpose === undefined ? [] : [[name, purpose] as const];
  });
  if (purposes.length > 0) info.secretPurposes = Object.fromEntries(purposes);
  if (options.vision !== undefined && (executor?.vision === true || kind !== 'assert')) info.vision = options.vision;
  if (options.schema !== undefined) info.schema = options.schema;
  if (options.interval !== undefined) info.intervalMs = options.interval;
  return info;
}

/** Decide the step: refused before it starts, replayed by the interceptor, or handed to the executor. Never throws. */
export async function decide(attempt: AttemptState, call: StepCall, step: StartedStep): Promise<StepDecision> {
  const refused = refusal(attempt, call);
  if (refused !== undefined) return { kind: 'refused', verdict: refused };
  const { session } = step;
  const actions = createPolicedActions(attempt.actionHost, session);
  let handOff: HandOff = NO_HAND_OFF;
  try {
    const interception = await intercept(attempt, call, step, actions);
    if (interception.kind === 'replayed') return interception;
    handOff = interception.handOff;
    if (step.executor === undefined) return { kind: 'unavailable', verdict: unavailableVerdict(call), handOff };
    return await execute(attempt, call, step, step.executor, actions, handOff);
  } catch (error) {
    return { kind: 'errored', verdict: final(verdictOfError(attempt, error, session), session), handOff };
  }
}

/** Why the step may not start: a vision assert its executor cannot see, or a page on an origin the policy refuses. */
function refusal(attempt: AttemptState, { kind, options, entry }: StepCall): StepVerdict | undefined {
  if (kind === 'assert' && options.vision !== undefined && options.vision !== false && entry.executor !== undefined && entry.executor.vision !== true) {
    return {
      status: 'blocked',
      errorCode: 'UNSUPPORTED_CAPABILITY',
      summary: `agent.assert with vision needs an executor that declares \`vision: true\`; ${entry.executor.name} does not.`,
    };
  }
  const place = attempt.refusedPlace();
  return place === undefined ? undefined : { status: 'blocked', errorCode: 'POLICY_DENIED', summary: place };
}

/** Offer the step to the interceptor (the cache): it replays the step itself, or hands it on with what it found. */
async function intercept(attempt: AttemptState, call: StepCall, step: StartedStep, actions: StepActions): Promise<Replayed | { kind: 'handed-off'; handOff: HandOff }> {
  const interceptor = attempt.options.stepInterceptor;
  if (interceptor === undefined) return { kind: 'handed-off', handOff: NO_HAND_OFF };
  const { session } = step;
  const result = await session.deadline.race(
    interceptor(intercepted(attempt, call, step), {
      actions,
      briefActions: createPolicedActions(attempt.actionHost, session, { settle: 'brief' }),
      immediateActions: createPolicedActions(attempt.actionHost, session, { settle: 'none' }),
      observe: observerFor(attempt.contextHost, session),
      signal: session.deadline.signal,
      redact: (text) => attempt.redact(text),
      remainingMs: () => session.deadline.remainingMs(),
      holdsStill: async (quietMs, maxMs) => (session.latest === undefined ? undefined : attempt.contextHost.observer.still(session.latest, quietMs, maxMs, session.deadline.signal)),
    }),
  );
  if ('handled' in result) {
    const verdict = final(checkVerdict(result.handled.verdict, call.kind, facts(attempt, session)), session);
    return { kind: 'replayed', verdict, cache: result.handled.cache };
  }
  return { kind: 'handed-off', handOff: { prefix: result.continueWith, cache: result.cache, afterStep: result.afterStep } };
}

/** Run the executor on the step's context; its verdict is checked against the rules and the facts. */
async function execute(attempt: AttemptState, call: StepCall, step: StartedStep, executor: StepExecutor, actions: StepActions, handOff: HandOff): Promise<StepDecision> {
  const { kind, entry, options } = call;
  const { session } = step;
  const agent = { context: attempt.agentContext(entry, options.agentContext), model: entry.model, judge: entry.judge, providerOptions: entry.providerOptions };
  const context = buildStepContext(attempt.contextHost, { agent, executor, session, actions, prefix: handOff.prefix });
  const raw = await session.deadline.race(Promise.resolve().then(() => executor.runStep(context)));
  const named = stepEvidenceOf(raw, kind);
  const evidence = named === undefined ? undefined : judgedEvidence(named, session.latest);
  return { kind: 'concluded', verdict: final(checkVerdict(raw, kind, facts(attempt, session)), session), handOff, evidence };
}

/**
 * The screen a recorded act step ends on: taken once the page held still, so effects that
 * land after the last action settled (a submit that fetches, then navigates) are part of it.
 * Only an interceptor that waits for the step's end wants it.
 */
export async function endScreen(attempt: AttemptState, decision: StepDecision, session: StepSession): Promise<RunnerObservation | undefined> {
  const wanted = handOffOf(decision).afterStep !== undefined;
  if (!wanted || session.info.kind !== 'act' || decision.verdict.status !== 'passed' || session.sentences.length === 0 || session.latest === undefined) return undefined;
  try {
    const screen = await attempt.observer.quiet(session.latest, session.deadline.signal);
    session.latest = screen;
    return screen;
  } catch (error) {
    attempt.logger.debug(`the end screen of step ${session.info.index} could not be taken: ${messageOf(error)}`);
    return undefined;
  }
}

/** The verdict as reported: an extracted value that misses its schema fails. (Its summary is redacted with the step's record.) */
export function reportedVerdict({ kind, options }: StepCall, decided: StepVerdict): StepVerdict {
  if (kind === 'extract' && decided.status === 'passed' && !(options.schema as { safeParse(input: unknown): { success: boolean } }).safeParse(decided.value).success) {
    return { status: 'failed', errorCode: 'MODEL_OUTPUT_INVALID', summary: 'The extracted value does not match the schema.' };
  }
  return decided;
}

/** Tell an interceptor that waits for the step's end how it ended (a passed judgment with its evidence). */
export function tellInterceptor(attempt: AttemptState, decision: StepDecision, verdict: StepVerdict, screen: RunnerObservation | undefined): void {
  const { afterStep } = handOffOf(decision);
  if (afterStep === undefined) return;
  const evidence = decision.kind === 'concluded' && verdict.status === 'passed' ? decision.evidence : undefined;
  try {
    const finished: FinishedStepView = evidence === undefined ? { verdict } : { verdict, evidence };
    if (screen !== undefined) finished.endScreen = screen;
    afterStep(finished);
  } catch (error) {
    attempt.logger.warn(`the step interceptor's afterStep failed: ${messageOf(error)}`);
  }
}

/**
 * The record of the finished step, as it leaves the attempt: it passes the outbound boundary
 * here, once, every text in it redacted (the summary, the actions, the cache outcome, the turns,
 * the artifacts' labels). The report, the test's outcome and the ledger read this record.
 */
export function recordOf(attempt: AttemptState, call: StepCall, step: StartedStep, decision: StepDecision, verdict: StepVerdict): StepRecord {
  const { session, executor } = step;
  const record: StepRecord = {
    index: session.info.index,
    kind: call.kind,
    instruction: session.info.instruction,
    agent: call.agentName,
    executor: executor?.name ?? 'none',
    status: verdict.status,
    summary: verdict.summary,
    modelCalls: session.budget.modelCalls(),
    tokens: session.budget.tokens(),
    actions: [...session.sentences],
    durationMs: Math.max(0, attempt.clock.now() - step.started),
    timing: { modelMs: session.budget.modelMs(), ...session.timing },
    artifacts: session.artifacts,
  };
  if (verdict.errorCode !== undefined) record.errorCode = verdict.errorCode;
  const cache = cacheOf(decision);
  if (cache !== undefined) record.cache = cache;
  if (session.turns !== undefined) record.turns = session.turns;
  if (session.leftOut.screens > 0) record.leftOut = { ...session.leftOut };
  return attempt.outbound.record('report', record);
}

/** A hard stop outranks whatever the executor concluded. */
function final(verdict: StepVerdict, session: StepSession): StepVerdict {
  const stop = session.hardStop;
  if (stop === undefined) return verdict;
  return { status: statusForCode(stop.code), errorCode: stop.code, summary: stop.message };
}

function facts(attempt: AttemptState, session: StepSession): { budgetSpent: boolean; deadlinePassed: boolean; cancelled: boolean } {
  return {
    budgetSpent: session.budget.isSpent(),
    deadlinePassed: session.deadline.timeIsUp(),
    cancelled: attempt.deadline.signal.aborted,
  };
}

function verdictOfError(attempt: AttemptState, error: unknown, session: StepSession): StepVerdict {
  // Redacted with the step's record, where it leaves.
  if (isE2EError(error)) {
    const verdict = { status: statusForCode(error.code), errorCode: error.code, summary: error.message };
    // A thrown runtime-only code obeys the same rule as a returned one.
    return checkVerdict(verdict, session.info.kind, facts(attempt, session));
  }
  const message = messageOf(error);
  return {
    status: 'failed',
    errorCode: 'STEP_NO_CONCLUSION',
    summary: `The executor threw instead of returning a verdict: ${message}`,
  };
}

/** The step as the interceptor sees it. */
function intercepted(attempt: AttemptState, { entry, agentName, options }: StepCall, { prepared, executor, session }: StartedStep): InterceptedStep {
  const { testId, retry, titlePath } = attempt.options.attempt;
  const step: InterceptedStep = {
    info: session.info,
    template: prepared.template,
    paramSources: prepared.sources,
    agent: { name: agentName, context: attempt.agentContext(entry, options.agentContext) },
    attempt: { testId, retry, titlePath: [...titlePath] },
    target: attempt.options.target,
  };
  if (executor !== undefined) {
    step.executor = { name: executor.name, cache: executor.cache ?? 'inherit' };
    if (executor.version !== undefined) step.executor.version = executor.version;
  }
  return step;
}

/** A step no executor can run: the built-in agent or judgments need a model. */
function unavailableVerdict({ kind, agentName }: StepCall): StepVerdict {
  const needs = kind === 'act' ? 'the built-in agent and its model' : 'the built-in judgments';
  const fix = kind === 'act' || kind === 'assert' ? ' or give it an `executor`' : '';
  return { status: 'blocked', errorCode: 'MODEL_UNAVAILABLE', summary: `agent.${kind} needs ${needs}: set \`model\` on agents.${agentName}${fix}.` };
}

/** A judgment's evidence with the screen its ids belong to: the step's latest observation, when the revisions agree. */
function judgedEvidence(evidence: StepEvidence, latest: RunnerObservation | undefined): JudgedEvidence {
  const screen = latest !== undefined && latest.revision === evidence.revision ? latest : undefined;
  return { nodeIds: evidence.nodeIds, screen, cacheable: evidence.cacheable };
}

function formatSeconds(milliseconds: number): string {
  return milliseconds % 1000 === 0 ? `${milliseconds / 1000} s` : `${(milliseconds / 1000).toFixed(1)} s`;
}
