/**
 * The built-in judgments (DESIGN §4): `assert`, `waitFor` and `extract` answered by one
 * structured-output call on the current screen, plus at most one repair round when the answer
 * cannot be used. Every answer names its evidence: ids of the screen lines that prove it.
 * Ids are checked against the screen; an answer whose ids stay unknown after the repair is
 * still used, but marked not cacheable. The evidence has the shape of a verdict's
 * `evidence` (`StepEvidence`), so a judgment returned as a verdict reaches the cache as is.
 */
import { generateText, NoObjectGeneratedError, NoOutputGeneratedError, Output, type LanguageModel, type LanguageModelUsage, type ModelMessage, type UserContent } from 'ai';
import type { ProviderOptions } from '@ai-sdk/provider-utils';
import { z } from 'zod';
import { E2EError, messageOf } from '../errors/index.js';
import { shapeOf } from '../step/screen-text.js';
import type { Observation, StepContext, StepEvidence, StepVerdict } from '../contract/step-contract.js';
import { describeShape, jsonShapeOf, readAnswer } from './answer-shape.js';
import { judgeModelOf, toModelUsage } from './model.js';
import { sleep, withProviderPolicy, type ProviderPolicy } from './provider-errors.js';
import { followsSchemas } from './provider-traits.js';
import { modelLabel, reportWarnings, withoutSdkPrinting, type SdkWarning } from './sdk-warnings.js';
import { clipLine } from '../contract/text.js';

/** Options every judgment takes. */
export interface JudgmentOptions {
  /** The model; default the step's judge, then its model. */
  model?: LanguageModel;
  /** Provider options; default the agent entry's. */
  providerOptions?: ProviderOptions;
  /** Request timeout and retry behaviour. */
  provider?: ProviderPolicy;
}

/**
 * A judged verdict with its evidence: the ids of the screen lines that prove the answer (all
 * of them on the judged screen), that screen's revision, and whether the ids could be checked
 * (`cacheable: false` after unknown ids survived the repair round, for vision-only answers,
 * and for waitFor answers that are not the passing one).
 */
export interface Judgment extends StepVerdict {
  evidence: StepEvidence;
  /** Model calls this judgment made. */
  modelCalls: number;
}

/** Options of {@link judgeAssert}. */
export interface JudgeAssertOptions extends JudgmentOptions {
  question: string;
  /** `true`: the screenshot joins the text screen; `'only'`: the screenshot alone. Withheld after a secret was typed. */
  vision?: boolean | 'only';
}

/** Options of {@link judgeWaitFor}. */
export interface JudgeWaitForOptions extends JudgmentOptions {
  condition: string;
  /** How long to wait; default (and at most) the time left until the step deadline. */
  timeoutMs?: number;
  /** Pause between looks at the screen. Default 1,000 ms. */
  intervalMs?: number;
  vision?: boolean | 'only';
}

/** Options of {@link judgeExtract}. */
export interface JudgeExtractOptions<Schema extends z.ZodType> extends JudgmentOptions {
  question: string;
  /** The shape of the answer. */
  schema: Schema;
}

/** What {@link judgeExtract} returns. */
export interface Extraction<Value> {
  value: Value;
  summary: string;
  /** The lines the value was read from (see {@link Judgment}). */
  evidence: StepEvidence;
  modelCalls: number;
}

const JUDGE_RULES = [
  'You answer one question about the screen of an app under test, from what the screen shows and nothing else.',
  'The screen is text, one node per line: #id role "name" with details and [states]; a screenshot may come with it.',
  'Answer with JSON only, in the shape given after the question. "evidence" lists the ids (like n12) of the lines that prove your answer; leave it empty only when nothing on the screen bears on it.',
  'Do not guess: when the screen cannot tell, say so.',
].join('\n');

const verdictSchema = z.strictObject({
  verdict: z.enum(['holds', 'fails', 'inconclusive']),
  reason: z.string().describe('One sentence naming what on the screen decides it'),
  evidence: z.array(z.string()).describe('Ids of the screen lines that prove the answer, like n12'),
});

/** The ids of the node lines of a screen text. */
export function screenIds(text: string): Set<string> {
  const ids = new Set<string>();
  for (const match of text.matchAll(/^ *#(\S+) /gm)) ids.add(match[1]!);
  return ids;
}

/** Ids as the screen writes them: `#` dropped, and only the id of a cited whole line (`#n3 textbox "…"`). */
function normalizeIds(ids: readonly string[]): string[] {
  return [...new Set(ids.map((id) => id.trim().replace(/^#/, '').split(/\s/)[0] ?? '').filter((id) => id !== ''))];
}

interface LookOptions {
  vision: boolean | 'only';
}

interface Look {
  observation: Observation;
  content: UserContent;
  visionOnly: boolean;
}

/** Observe the screen for a judgment and build the user message around `question`. */
async function look(ctx: StepContext, question: string, options: LookOptions, taken?: Observation): Promise<Look> {
  const wantPixels = options.vision !== false && !ctx.attempt.secretFilled();
  const observation = taken !== undefined && !wantPixels ? taken : await ctx.observe(wantPixels ? { pixels: true } : {});
  const pixels = wantPixels ? observation.pixels : undefined;
  const visionOnly = options.vision === 'only' && pixels !== undefined;
  const lines = [question];
  if (ctx.agentContext.trim() !== '') lines.push(`About the app:\n${ctx.agentContext.trim()}`);
  if (options.vision !== false && pixels === undefined) lines.push('(No screenshot: screenshots are withheld after a secret was typed. Judge from the text screen.)');
  if (!visionOnly) lines.push(observation.text);
  else lines.push('Judge from the screenshot alone; evidence may stay empty.');
  const content: UserContent = [{ type: 'text', text: lines.join('\n\n') }];
  if (pixels !== undefined) content.push({ type: 'image', image: pixels, mediaType: 'image/png' });
  return { observation, content, visionOnly };
}

interface StructuredCall<Value> {
  ctx: StepContext;
  options: JudgmentOptions;
  schema: z.ZodType<Value>;
  content: UserContent;
  /** A reason to ask again (e.g. unknown evidence ids), or undefined when the value is usable. */
  check(value: Value): string | undefined;
}

/** The reply's text and usage; the reading is ours, so an unreadable reply is not an error here. */
interface Reply {
  text: string;
  usage: LanguageModelUsage | undefined;
  warnings: readonly SdkWarning[];
}

/**
 * Ask once. A model that follows schemas gets the schema as structured output; any other gets
 * plain JSON mode (the shape is in the prompt either way). The SDK's own strict reading is
 * only a first try: when it refuses the reply, its text is read here, tolerantly.
 */
async function askOnce<Value>(call: StructuredCall<Value>, model: LanguageModel, messages: ModelMessage[], signal: AbortSignal, providerOptions: ProviderOptions | undefined): Promise<Reply> {
  try {
    const result = await withoutSdkPrinting(() => generateText({
      model,
      system: JUDGE_RULES,
      messages,
      output: followsSchemas(model) ? Output.object({ schema: call.schema }) : Output.json(),
      maxRetries: 0,
      abortSignal: signal,
      ...(providerOptions === undefined ? {} : { providerOptions }),
    }));
    return { text: result.text, usage: result.usage, warnings: result.warnings ?? [] };
  } catch (error) {
    if (NoObjectGeneratedError.isInstance(error)) return { text: error.text ?? '', usage: error.usage, warnings: [] };
    if (NoOutputGeneratedError.isInstance(error)) return { text: '', usage: undefined, warnings: [] };
    throw error;
  }
}

/** The question's content with the answer's shape stated after it. */
function withShape(content: UserContent, shape: string): UserContent {
  const note = `Answer with JSON only. ${shape}`;
  if (typeof content === 'string') return `${content}\n\n${note}`;
  return [...content, { type: 'text', text: note }];
}

/** One judgment plus at most one repair round. Returns the value and whether it passed `check`. */
async function structuredJudgment<Value>(call: StructuredCall<Value>): Promise<{ value: Value; clean: boolean; calls: number }> {
  const { ctx, options } = call;
  const model = options.model ?? judgeModelOf(ctx);
  const providerOptions = options.providerOptions ?? (ctx.providerOptions as ProviderOptions | undefined);
  const jsonShape = jsonShapeOf(call.schema);
  const shape = describeShape(jsonShape);
  const messages: ModelMessage[] = [{ role: 'user', content: withShape(call.content, shape) }];
  const providerContext = { signal: ctx.signal, remainingMs: () => ctx.budgets.remainingMs(), redact: (text: string) => ctx.redact(text) };
  const debug = (line: string): void => ctx.debug?.(line);
  let usable: Value | undefined;
  let hasUsable = false;
  let lastProblem = 'no answer';
  let calls = 0;
  for (let round = 0; round < 2; round++) {
    if (ctx.budgets.remainingModelCalls() <= 0) break;
    const reply = await withProviderPolicy(providerContext, options.provider, ({ signal }) => askOnce(call, model, messages, signal, providerOptions));
    calls++;
    ctx.budgets.recordModelCall(toModelUsage(reply.usage));
    reportWarnings(debug, reply.warnings, modelLabel(model));
    const read = readAnswer(reply.text, call.schema, jsonShape);
    let problem: string;
    if (read.kind === 'ok') {
      const found = call.check(read.value);
      if (found === undefined) return { value: read.value, clean: true, calls };
      usable = read.value;
      hasUsable = true;
      problem = found;
      lastProblem = found;
    } else {
      lastProblem = read.problem;
      problem = `The answer could not be read: ${read.problem}. Reply with JSON only. ${shape}`;
    }
    if (reply.text.trim() !== '') messages.push({ role: 'assistant', content: reply.text });
    messages.push({ role: 'user', content: problem });
  }
  if (hasUsable) return { value: usable as Value, clean: false, calls };
  throw new E2EError('MODEL_OUTPUT_INVALID', `The judgment gave no usable answer after a repair round: ${lastProblem}.`);
}

function evidenceCheck(screen: Observation, visionOnly: boolean): (ids: readonly string[]) => string | undefined {
  const known = screenIds(screen.text);
  return (ids) => {
    if (visionOnly) return undefined;
    const unknown = normalizeIds(ids).filter((id) => !known.has(id));
    if (unknown.length === 0) return undefined;
    return `These evidence ids are not on the screen: ${unknown.join(', ')}. Answer again, listing only ids of lines shown on the screen.`;
  };
}

function settleEvidence(ids: readonly string[], screen: Observation, clean: boolean, visionOnly: boolean): StepEvidence {
  const known = screenIds(screen.text);
  const nodeIds = normalizeIds(ids).filter((id) => known.has(id));
  return { nodeIds, revision: screen.revision, cacheable: clean && !visionOnly && nodeIds.length > 0 };
}

/** Evidence that proves nothing (a failed wait). */
function noEvidence(): StepEvidence {
  return { nodeIds: [], revision: 0, cacheable: false };
}

async function judgeOnce(ctx: StepContext, question: string, options: JudgmentOptions, vision: boolean | 'only', taken?: Observation): Promise<Judgment> {
  const seen = await look(ctx, `Does this hold on the screen? ${question}`, { vision }, taken);
  const check = evidenceCheck(seen.observation, seen.visionOnly);
  const answer = await structuredJudgment({
    ctx,
    options,
    schema: verdictSchema,
    content: seen.content,
    check: (value) => check(value.evidence),
  });
  const evidence = settleEvidence(answer.value.evidence, seen.observation, answer.clean, seen.visionOnly);
  // Summaries and errors become the step's verdict, redacted with its record where it leaves the attempt.
  const summary = answer.value.reason.trim() || `The statement ${answer.value.verdict}.`;
  const base = { summary, evidence, modelCalls: answer.calls };
  switch (answer.value.verdict) {
    case 'holds':
      return { status: 'passed', ...base };
    case 'fails':
      return { status: 'failed', errorCode: 'ASSERTION_FAILED', ...base };
    case 'inconclusive':
      return { status: 'failed', errorCode: 'ASSERTION_INCONCLUSIVE', ...base };
  }
}

/**
 * Judge whether `question` holds on the current screen: passed when it holds, failed with
 * `ASSERTION_FAILED` when it does not, failed with `ASSERTION_INCONCLUSIVE` when the screen
 * cannot tell. At most two model calls.
 */
export async function judgeAssert(ctx: StepContext, options: JudgeAssertOptions): Promise<Judgment> {
  return judgeOnce(ctx, options.question, options, options.vision ?? false);
}

/**
 * What must change before waitFor asks the model again: the screen's shape (ids, roles,
 * names, texts, values, states; ticking clocks masked), else its text below the header.
 */
function screenKey(observation: Observation): string {
  if (observation.tree !== undefined) return shapeOf({ root: observation.tree, url: observation.url });
  const newline = observation.text.indexOf('\n');
  return newline === -1 ? '' : observation.text.slice(newline + 1);
}

/**
 * Wait until `condition` holds. With the text screen the model is asked only when the screen
 * changed since its last answer; with vision, once per interval. Passed when it holds;
 * failed with `ASSERTION_FAILED` (and the last answer) when time runs out, stopping a moment
 * before the step deadline so the verdict, not the deadline, reports it; failed with
 * `STEP_BUDGET_EXHAUSTED` when the model calls run out.
 */
export async function judgeWaitFor(ctx: StepContext, options: JudgeWaitForOptions): Promise<Judgment> {
  const vision = options.vision ?? false;
  const intervalMs = Math.max(10, options.intervalMs ?? 1_000);
  const margin = Math.min(intervalMs, 500);
  const started = Date.now();
  const available = Math.max(0, ctx.budgets.remainingMs() - margin);
  const limit = Math.min(options.timeoutMs ?? Number.POSITIVE_INFINITY, available);
  const deadline = started + limit;
  let lastKey: string | undefined;
  let last: Judgment | undefined;
  let calls = 0;
  for (;;) {
    const observation = vision === false ? await ctx.observe({ tree: true }) : undefined;
    const key = observation === undefined ? undefined : screenKey(observation);
    if (vision !== false || key !== lastKey) {
      if (ctx.budgets.remainingModelCalls() <= 0) {
        const summary = `No model calls left while waiting for: ${options.condition}`;
        return { status: 'failed', errorCode: 'STEP_BUDGET_EXHAUSTED', summary, evidence: noEvidence(), modelCalls: calls };
      }
      last = await judgeOnce(ctx, options.condition, options, vision, observation);
      calls += last.modelCalls;
      lastKey = key;
      if (last.status === 'passed') return { ...last, modelCalls: calls };
    }
    const left = deadline - Date.now();
    if (left <= 0) {
      const seconds = Math.round((Date.now() - started) / 100) / 10;
      const summary = `"${options.condition}" did not come true within ${seconds} s.${last === undefined ? '' : ` Last look: ${last.summary}`}`;
      return { status: 'failed', errorCode: 'ASSERTION_FAILED', summary, evidence: noEvidence(), modelCalls: calls };
    }
    await sleep(Math.min(intervalMs, left), ctx.signal);
  }
}

/**
 * Read a typed value off the screen. The answer must match `schema`; one repair round is
 * allowed, then `MODEL_OUTPUT_INVALID`. When the screen does not show the answer, the call
 * fails with `ASSERTION_INCONCLUSIVE`.
 */
export async function judgeExtract<Schema extends z.ZodType>(ctx: StepContext, options: JudgeExtractOptions<Schema>): Promise<Extraction<z.infer<Schema>>> {
  type Answer = { found: boolean; value: z.infer<Schema> | null; reason: string; evidence: string[] };
  const schema = z.strictObject({
    found: z.boolean().describe('false when the screen does not show the answer'),
    value: options.schema.nullable().describe('The answer, or null when not found'),
    reason: z.string().describe('One sentence on where the answer is on the screen'),
    evidence: z.array(z.string()).describe('Ids of the screen lines the answer is read from, like n12'),
  }) as unknown as z.ZodType<Answer>;
  const seen = await look(ctx, `Read this from the screen: ${options.question}`, { vision: false });
  const check = evidenceCheck(seen.observation, false);
  const answer = await structuredJudgment({
    ctx,
    options,
    schema,
    content: seen.content,
    check: (value) => {
      if (value.found && value.value === null) return 'found is true but value is null. Give the value, or set found to false.';
      return value.found ? check(value.evidence) : undefined;
    },
  });
  if (!answer.value.found || answer.value.value === null) {
    throw new E2EError('ASSERTION_INCONCLUSIVE', `The screen does not show the answer to "${options.question}": ${answer.value.reason}`);
  }
  const evidence = settleEvidence(answer.value.evidence, seen.observation, answer.clean, false);
  return { value: answer.value.value, summary: answer.value.reason, evidence, modelCalls: answer.calls };
}
