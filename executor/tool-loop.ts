/**
 * The tool loop (DESIGN §5): an executor that drives a model turn by turn with a vocabulary
 * of tools the caller chooses. The loop owns the mechanics every such executor needs: model
 * call and usage accounting, the verdict tool, loop guards, the wind-down before budgets and
 * deadlines run out, screen elision and history rewrites, and the transcript.
 */
import type { LanguageModel, ModelMessage, ToolResultPart, ToolSet } from 'ai';
import type { ProviderOptions, ToolResultOutput } from '@ai-sdk/provider-utils';
import { E2EError, isE2EError } from '../errors/index.js';
import type { StepContext, StepExecutor, StepVerdict } from '../contract/step-contract.js';
import { isRuntimeHardStop } from './hard-stop.js';
import { ignoredKeysNote, repairCall } from './call-repair.js';
import { compactHistory, ReasoningGate } from './history.js';
import { callSignature, LoopGuards, type LoopLimits } from './loop-guards.js';
import { prepareToolSchemas, requestTurn, withoutExecute, type RequestedToolCall, type TurnResponse } from './model-call.js';
import { requireModel, toModelUsage } from './model.js';
import { cancellationError, type ProviderPolicy } from './provider-errors.js';
import { elideSupersededPictures, movePicturesOut } from './pictures.js';
import { takesImagesInToolResults } from './provider-traits.js';
import { elideSupersededScreens } from './screen-elision.js';
import { modelLabel, reportWarnings } from './sdk-warnings.js';
import { describeToolError } from './tool-failure.js';
import { listedTools } from './unlisted-tool.js';
import { renderTranscript, TurnLog } from './transcript.js';
import { ACT_VERDICT_CODES, createVerdictTool, VERDICT_TOOL_NAME } from './verdict-tool.js';

/**
 * Runs a tool body under the loop's rules: while the step is concluding it refuses to start
 * new work; a runtime hard stop propagates; any other error comes back as text for the model
 * and the call counts as failed.
 */
export type Guard = <T>(body: () => Promise<T>) => Promise<T | string>;

/** What `prepareMessages` may return: a history, or a history and a request to stop. */
export type PreparedMessages = ModelMessage[] | { messages: ModelMessage[]; stop?: boolean };

/** Facts about the coming turn, for `prepareMessages`. */
export interface PrepareInfo {
  /** Turns already taken in this step (0 before the first). */
  turn: number;
  ctx: StepContext;
}

/** Options of {@link createToolLoopExecutor}. */
export interface ToolLoopOptions {
  /** The executor's name (reports, provenance). */
  name: string;
  /** The executor's version; bump it when its behaviour changes. */
  version?: string;
  /** `'off'`: never replay or record this executor's acts. Default `'inherit'`. */
  cache?: 'inherit' | 'off';
  /** Declare that `assert` may pass its vision request as `ctx.step.vision`. */
  vision?: boolean;
  /** The system prompt, fixed or per step. */
  system: string | ((ctx: StepContext) => string);
  /** The opening of the conversation: a user message, or a whole message history. */
  buildPrompt(ctx: StepContext): string | ModelMessage[] | Promise<string | ModelMessage[]>;
  /**
   * Runs before every turn with the history (superseded screens already elided). Return a
   * shorter history, or `{ messages, stop: true }` to end the step: the loop then asks the
   * model for its verdict. Rewriting a message drops reasoning parts from that message on.
   */
  prepareMessages?(messages: ModelMessage[], info: PrepareInfo): PreparedMessages | Promise<PreparedMessages>;
  /** The step's tools. Wrap bodies in `guard`. `complete_step` is added by the loop. */
  tools(ctx: StepContext, helpers: { guard: Guard }): ToolSet | Promise<ToolSet>;
  /** The model; default the agent entry's (`ctx.model`). */
  model?: LanguageModel;
  /** The judge model, carried on the executor for the runner's judgments. */
  judge?: LanguageModel;
  /** Provider options for every call; default the agent entry's. */
  providerOptions?: ProviderOptions;
  /** Request timeout and retry behaviour. */
  provider?: ProviderPolicy;
  /** Stream each turn (the request timeout then measures silence, not total time). Default false. */
  streaming?: boolean;
  /** Force the verdict when this many ms are left before the step deadline. Default 10,000. */
  windDownMs?: number;
  /** Loop guard thresholds. */
  limits?: Partial<LoopLimits>;
  /** Longest tool result text sent to the model; longer ones are cut. Default 200,000. */
  maxToolResultChars?: number;
}

const CONCLUDING_REFUSAL = 'Not run: the step is ending. Call complete_step with your verdict.';
const VERDICT_NOT_LAST = 'Verdict not recorded: complete_step comes last in a turn, after the actions it rests on. Read the results above, then decide.';
const VERDICT_UNSEEN =
  'Verdict not recorded: the action before it changed nothing on screen, so nothing shows the step done. Read the result above, then decide.';
const DEFAULT_WIND_DOWN_MS = 10_000;
const DEFAULT_MAX_RESULT_CHARS = 200_000;
const MAX_FORCED_TURNS = 2;

function truncate(text: string, limit: number): string {
  return text.length > limit ? `${text.slice(0, limit)}\n[… ${text.length - limit} more characters cut]` : text;
}

async function lastValue(value: unknown): Promise<unknown> {
  if (value !== null && typeof value === 'object' && Symbol.asyncIterator in value) {
    let last: unknown;
    for await (const item of value as AsyncIterable<unknown>) last = item;
    return last;
  }
  return value;
}

/** State of one step's run of the loop. */
interface LoopRun {
  ctx: StepContext;
  options: ToolLoopOptions;
  tools: ToolSet;
  concluding: string | undefined;
  callFailed: boolean;
}

async function toToolOutput(run: LoopRun, call: RequestedToolCall, raw: unknown, failed: boolean): Promise<ToolResultOutput> {
  const limit = run.options.maxToolResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  const clean = (text: string): string => truncate(run.ctx.redact(text), limit);
  if (typeof raw === 'string') return failed ? { type: 'error-text', value: clean(raw) } : { type: 'text', value: clean(raw) };
  const definition = run.tools[call.toolName];
  if (definition?.toModelOutput !== undefined) {
    const output = await definition.toModelOutput({ toolCallId: call.toolCallId, input: call.input, output: raw });
    if (output.type === 'text' || output.type === 'error-text') return { ...output, value: clean(output.value) };
    if (output.type === 'content') {
      return { ...output, value: output.value.map((item) => (item.type === 'text' ? { ...item, text: clean(item.text) } : item)) };
    }
    return output;
  }
  if (raw === undefined) return { type: 'text', value: 'Done.' };
  // Structured results travel as JSON text, so redaction and the size cap apply to them too.
  const text = clean(JSON.stringify(raw) ?? 'null');
  return failed ? { type: 'error-text', value: text } : { type: 'text', value: text };
}

/** `output` with a line of `note` added where the model reads text. */
function withNote(output: ToolResultOutput, note: string): ToolResultOutput {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return { ...output, value: `${output.value}\n${note}` };
    case 'content':
      return { ...output, value: [...output.value, { type: 'text', text: note }] };
    default:
      return output;
  }
}

function outputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'content':
      return output.value.map((item) => (item.type === 'text' ? item.text : `[${item.type}]`)).join('\n');
    case 'execution-denied':
      return output.reason ?? 'denied';
    default:
      return JSON.stringify(output.value);
  }
}

/** Run one requested tool call; returns its result part and whether it failed. */
/** Where a call stands in its turn: a verdict may end a turn of actions only when it comes last, after a visible change. */
interface CallPlace {
  last: boolean;
  /** The call before it in the turn reported that the screen did not change. */
  afterUnchanged: boolean;
}

/** True for a tool result that says its action changed nothing on screen (a grammar tool's `unchanged`). */
function reportsNoChange(raw: unknown): boolean {
  return typeof raw === 'object' && raw !== null && (raw as { unchanged?: unknown }).unchanged === true;
}

async function runCall(
  run: LoopRun,
  call: RequestedToolCall,
  place: CallPlace,
  messages: ModelMessage[],
  verdictTool: ReturnType<typeof createVerdictTool>,
): Promise<{ part: ToolResultPart; failed: boolean; isVerdict: boolean; unchanged: boolean }> {
  let ignored: string[] = [];
  // The model learns which of its keys were ignored, in the result of the call that used the rest.
  const part = (output: ToolResultOutput): ToolResultPart => ({
    type: 'tool-result',
    toolCallId: call.toolCallId,
    toolName: call.toolName,
    output: ignored.length === 0 ? output : withNote(output, ignoredKeysNote(call.toolName, ignored)),
  });
  if (call.invalid !== undefined) {
    const repair = await repairCall(run.tools, call);
    if (repair.kind === 'refused') {
      return { part: part({ type: 'error-text', value: run.ctx.redact(repair.text) }), failed: true, isVerdict: call.toolName === VERDICT_TOOL_NAME, unchanged: false };
    }
    call = { toolCallId: call.toolCallId, toolName: call.toolName, input: repair.input };
    ignored = repair.ignored;
  }
  if (call.toolName === VERDICT_TOOL_NAME) {
    // With the final action: the actions before it ran (a failed one stops the turn before this), and the
    // last one's change report is what the verdict rests on; a passed verdict after no change is refused.
    if (run.concluding === undefined && !place.last) return { part: part({ type: 'text', value: VERDICT_NOT_LAST }), failed: false, isVerdict: true, unchanged: false };
    const claimsPassed = (call.input as { status?: unknown } | undefined)?.status === 'passed';
    if (run.concluding === undefined && place.afterUnchanged && claimsPassed) {
      return { part: part({ type: 'text', value: VERDICT_UNSEEN }), failed: false, isVerdict: true, unchanged: false };
    }
    const execute = verdictTool.tool.execute!;
    const text = (await execute(call.input as never, { toolCallId: call.toolCallId, messages })) as string;
    return { part: part({ type: 'text', value: text }), failed: false, isVerdict: true, unchanged: false };
  }
  const definition = run.tools[call.toolName];
  if (definition?.execute === undefined) {
    const text = `There is no tool named "${call.toolName}" that this loop can run. The tools are: ${Object.keys(listedTools(run.tools)).join(', ')}.`;
    return { part: part({ type: 'error-text', value: text }), failed: true, isVerdict: false, unchanged: false };
  }
  if (run.concluding !== undefined) return { part: part({ type: 'text', value: CONCLUDING_REFUSAL }), failed: false, isVerdict: false, unchanged: false };
  run.callFailed = false;
  let raw: unknown;
  let failed = false;
  try {
    raw = await lastValue(await definition.execute(call.input, { toolCallId: call.toolCallId, messages, abortSignal: run.ctx.signal }));
  } catch (error) {
    if (isRuntimeHardStop(error) || run.ctx.signal.aborted) throw error;
    raw = describeToolError(error);
    failed = true;
  }
  failed ||= run.callFailed;
  return { part: part(await toToolOutput(run, call, raw, failed)), failed, isVerdict: false, unchanged: !failed && reportsNoChange(raw) };
}

function windDownReason(ctx: StepContext, windDownMs: number): string | undefined {
  if (ctx.budgets.remainingModelCalls() <= 1) return 'This is the last model call the step allows.';
  if (ctx.budgets.remainingMs() <= windDownMs) return 'The step deadline is close.';
  if (ctx.budgets.remainingActions() <= 0) return 'The step has no actions left in its budget.';
  return undefined;
}

function concludeNotice(reason: string): ModelMessage {
  return { role: 'user', content: `${reason} Tools are closed now: call complete_step with your verdict, based on what you have seen.` };
}

async function runToolLoop(ctx: StepContext, options: ToolLoopOptions): Promise<StepVerdict> {
  const model = requireModel(`the ${options.name} executor`, options.model, ctx.model);
  const verdictTool = createVerdictTool(ctx.step.kind === 'act' ? { codes: ACT_VERDICT_CODES } : {});
  const run: LoopRun = { ctx, options, tools: {}, concluding: undefined, callFailed: false };
  const guard: Guard = async (body) => {
    if (run.concluding !== undefined) return CONCLUDING_REFUSAL;
    try {
      return await body();
    } catch (error) {
      if (isRuntimeHardStop(error) || ctx.signal.aborted) throw error;
      run.callFailed = true;
      return ctx.redact(describeToolError(error));
    }
  };
  const ownTools = await options.tools(ctx, { guard });
  if (VERDICT_TOOL_NAME in ownTools) {
    throw new E2EError('INVALID_ARGUMENT', `The ${options.name} executor defines a tool named ${VERDICT_TOOL_NAME}; the loop adds that one itself. Rename the tool.`);
  }
  run.tools = { ...ownTools, [VERDICT_TOOL_NAME]: verdictTool.tool };
  const modelTools = withoutExecute(listedTools(run.tools));
  const system = typeof options.system === 'function' ? options.system(ctx) : options.system;
  const building = Promise.resolve(options.buildPrompt(ctx));
  building.catch(() => undefined);
  // The first look is on its way (and waits for the app to mount): the first request's tool schemas are made meanwhile.
  await new Promise((resolve) => setTimeout(resolve, 0));
  prepareToolSchemas(modelTools);
  const opening = await building;
  const history: ModelMessage[] = typeof opening === 'string' ? [{ role: 'user', content: opening }] : [...opening];
  const providerOptions = options.providerOptions ?? (ctx.providerOptions as ProviderOptions | undefined);
  const guards = new LoopGuards(options.limits);
  const gate = new ReasoningGate();
  const turns = new TurnLog();
  const windDownMs = options.windDownMs ?? DEFAULT_WIND_DOWN_MS;
  const providerContext = { signal: ctx.signal, remainingMs: () => ctx.budgets.remainingMs(), redact: (text: string) => ctx.redact(text) };
  const debug = (line: string): void => ctx.debug?.(line);
  const imagesInResults = takesImagesInToolResults(model);
  const label = modelLabel(model);
  let sentLength = 0;
  let turn = 0;
  let forcedTurns = 0;
  let shrunk = false;
  let outcome: StepVerdict | undefined;
  const conclude = (reason: string): void => {
    if (run.concluding !== undefined) return;
    run.concluding = reason;
    history.push(concludeNotice(reason));
  };
  try {
    while (verdictTool.verdict() === undefined) {
      if (ctx.signal.aborted) throw cancellationError(ctx.signal);
      if (ctx.budgets.remainingModelCalls() <= 0) break;
      if (run.concluding === undefined) {
        const reason = windDownReason(ctx, windDownMs);
        if (reason !== undefined) conclude(reason);
      }
      if (run.concluding !== undefined && forcedTurns >= MAX_FORCED_TURNS) break;
      let view = elideSupersededPictures(elideSupersededScreens(history));
      if (options.prepareMessages !== undefined) {
        const prepared = await options.prepareMessages(view, { turn, ctx });
        if (Array.isArray(prepared)) view = prepared;
        else {
          view = prepared.messages;
          if (prepared.stop === true && run.concluding === undefined) {
            conclude('The executor found the step is not making progress.');
            view = [...view, history[history.length - 1]!];
          }
        }
      }
      const toolChoice = run.concluding === undefined ? undefined : ({ type: 'tool', toolName: VERDICT_TOOL_NAME } as const);
      const send = async (messages: ModelMessage[]): Promise<TurnResponse> =>
        requestTurn(providerContext, options.provider, {
          model,
          system,
          messages,
          tools: modelTools,
          ...(toolChoice === undefined ? {} : { toolChoice }),
          ...(providerOptions === undefined ? {} : { providerOptions }),
          ...(options.streaming === undefined ? {} : { streaming: options.streaming }),
        });
      if (shrunk) view = compactHistory(view, { keepTurns: 2, chunked: false });
      let outgoing = gate.outgoing(view, history.slice(sentLength));
      sentLength = history.length;
      let response: TurnResponse;
      const requested = performance.now();
      try {
        response = await send(outgoing);
      } catch (error) {
        if (!isE2EError(error) || error.code !== 'CONTEXT_OVERFLOW' || shrunk) throw error;
        shrunk = true;
        outgoing = gate.outgoing(compactHistory(view, { keepTurns: 2, chunked: false }), []);
        response = await send(outgoing);
      }
      ctx.budgets.recordModelCall(toModelUsage(response.usage, performance.now() - requested));
      reportWarnings(debug, response.warnings, label);
      turn++;
      if (run.concluding !== undefined) forcedTurns++;
      history.push(...response.assistantMessages);
      if (response.toolCalls.length === 0) {
        guards.recordTextReply();
        turns.add(turn, [], `replied without a tool call: ${response.text}`);
      } else {
        const parts: ToolResultPart[] = [];
        const summaries: string[] = [];
        let failedCall: string | undefined;
        let afterUnchanged = false;
        for (const [position, call] of response.toolCalls.entries()) {
          if (failedCall !== undefined) {
            // The rest of the turn was planned on a result that did not happen.
            const text = `Not run: ${failedCall} failed before it in this turn. Read that result, then decide again.`;
            parts.push({ type: 'tool-result', toolCallId: call.toolCallId, toolName: call.toolName, output: { type: 'text', value: text } });
            summaries.push(`not run: ${call.toolName}`);
            continue;
          }
          const result = await runCall(run, call, { last: position === response.toolCalls.length - 1, afterUnchanged }, outgoing, verdictTool);
          afterUnchanged = result.unchanged;
          parts.push(result.part);
          const text = outputText(result.part.output);
          summaries.push(`${result.failed ? 'failed' : 'ok'}: ${text.split('\n')[0] ?? ''}`);
          if (!result.isVerdict) guards.recordCall(callSignature(call.toolName, call.input), text, result.failed);
          if (result.failed) failedCall = call.toolName;
        }
        if (imagesInResults) history.push({ role: 'tool', content: parts });
        else {
          const moved = movePicturesOut(parts);
          history.push({ role: 'tool', content: moved.parts });
          if (moved.message !== undefined) history.push(moved.message);
        }
        turns.add(
          turn,
          response.toolCalls.map((call) => callSignature(call.toolName, call.input)),
          summaries.join(' | '),
        );
      }
      const review = guards.review();
      if (review.notices.length > 0 && run.concluding === undefined) history.push({ role: 'user', content: review.notices.join('\n') });
      if (review.conclude !== undefined) conclude(review.conclude);
    }
    outcome = verdictTool.verdict() ?? noVerdict(ctx, turn, run.concluding);
    return outcome;
  } catch (error) {
    if (isE2EError(error) && error.code === 'CONTEXT_OVERFLOW') {
      outcome = { status: 'failed', errorCode: 'CONTEXT_OVERFLOW', summary: `${error.message} The history was already shortened once.` };
      return outcome;
    }
    throw error;
  } finally {
    ctx.attachTurns(turns.list());
    const footer = outcome === undefined ? ['ended by an error'] : [`${outcome.status}${outcome.errorCode === undefined ? '' : ` (${outcome.errorCode})`}: ${outcome.summary}`];
    // The runner redacts a transcript where it leaves the attempt (attachTranscript), once.
    ctx.attachTranscript(renderTranscript(system, [...elideSupersededScreens(history)], footer));
  }
}

/**
 * The outcome of a loop that ended without a verdict: a spent action or model-call budget is
 * `STEP_BUDGET_EXHAUSTED` (the wind-down asked for a verdict first and none came), anything
 * else `STEP_NO_CONCLUSION`.
 */
function noVerdict(ctx: StepContext, turn: number, concluding: string | undefined): StepVerdict {
  const budgetSpent = ctx.budgets.remainingActions() <= 0 || ctx.budgets.remainingModelCalls() <= 0;
  if (budgetSpent) {
    return {
      status: 'failed',
      errorCode: 'STEP_BUDGET_EXHAUSTED',
      summary: `The step spent its budget (${ctx.budgets.remainingActions() <= 0 ? 'actions' : 'model calls'}) before the model gave a verdict; raise maxSteps/maxModelCalls or split the instruction.`,
    };
  }
  return {
    status: 'failed',
    errorCode: 'STEP_NO_CONCLUSION',
    summary:
      concluding === undefined
        ? `The model did not give a verdict within ${turn} model calls.`
        : `The model did not give a verdict when asked to conclude (${concluding})`,
  };
}

/**
 * Build an executor around the tool loop: you choose the prompt and the tools, the loop runs
 * at most `maxModelCalls` turns (each one model call, `ctx.signal` as the abort signal),
 * records usage per call, adds `complete_step`, and turns a step without a verdict into
 * `failed` / `STEP_NO_CONCLUSION`. Runtime hard stops thrown by tools end the step and
 * propagate; a context overflow is answered by shortening the history once, then
 * `CONTEXT_OVERFLOW`.
 */
export function createToolLoopExecutor(options: ToolLoopOptions): StepExecutor {
  const executor: StepExecutor = {
    name: options.name,
    runStep: (ctx) => runToolLoop(ctx, options),
  };
  if (options.version !== undefined) executor.version = options.version;
  if (options.cache !== undefined) executor.cache = options.cache;
  if (options.vision !== undefined) executor.vision = options.vision;
  if (options.model !== undefined) executor.model = options.model;
  if (options.judge !== undefined) executor.judge = options.judge;
  return executor;
}
