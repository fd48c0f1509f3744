/**
 * The opening message of an agent step (DESIGN §4): what to do, with which parameters, what
 * the test already did, what a cache replay already did, and then the whole screen once.
 * Later turns carry only changes. The brief and the screen are separate text parts, so
 * eliding the screen later leaves the brief byte-identical.
 */
import type { ModelMessage } from 'ai';
import type { ReplayedPrefix, StepContext } from '../contract/step-contract.js';
import { clipLine as clipOneLine } from '../contract/text.js';

const LEDGER_LIMIT = 20;
const SUMMARY_LIMIT = 200;

function clip(text: string, limit: number): string {
  return clipOneLine(text, limit + 1);
}

/** The replay hand-off notice: which recorded actions ran, why replay stopped, and how to go on. */
export function describeReplayedPrefix(prefix: ReplayedPrefix): string {
  const lines = [
    `A cached recording of this step was replayed first. It ran ${prefix.actions.length} of its ${prefix.total} actions, then stopped.`,
  ];
  if (prefix.actions.length > 0) {
    lines.push('Actions already done:');
    prefix.actions.forEach((action, index) => lines.push(`${index + 1}. ${action}`));
  }
  lines.push(`Why it stopped: ${prefix.reason}${prefix.detail === '' ? '' : ` (${prefix.detail})`}.`);
  lines.push(
    prefix.lastMayHaveCommitted
      ? 'The action it stopped at may have taken effect before it failed: check the screen before doing it again.'
      : 'The action it stopped at did not take effect.',
  );
  lines.push('Carry on from the current screen. Do not repeat the actions already done.');
  return lines.join('\n');
}

/** What the step asks, for the model: kind, instruction and how to conclude. */
function describeTask(ctx: StepContext): string {
  const { step } = ctx;
  const number = step.index + 1;
  switch (step.kind) {
    case 'act':
      return `Step ${number} (act): ${step.instruction}`;
    case 'assert':
      return [
        `Step ${number} (assert): check whether this holds on the screen: ${step.instruction}`,
        'Conclude passed when it holds, failed with ASSERTION_FAILED when it does not, and failed with ASSERTION_INCONCLUSIVE when the screen cannot tell. Do not change the app to make it hold.',
      ].join('\n');
    case 'waitFor':
      return `Step ${number} (wait): the screen should come to show: ${step.instruction}`;
    case 'extract':
      return `Step ${number} (extract): read from the screen: ${step.instruction}`;
  }
}

/** Options of {@link describeStep}. */
export interface StepBriefOptions {
  /** Include `ctx.agentContext` (default true; the built-in agent puts it in its system prompt instead). */
  includeContext?: boolean;
}

/** The step brief without the screen: task, parameters, secrets, context, earlier steps, replay hand-off. */
export function describeStep(ctx: StepContext, options: StepBriefOptions = {}): string {
  const sections = [describeTask(ctx)];
  const params = Object.entries(ctx.step.params);
  if (params.length > 0) sections.push(['Parameters:', ...params.map(([name, value]) => `- ${name}: ${value}`)].join('\n'));
  if (ctx.step.secrets.length > 0) {
    const purposes = ctx.step.secretPurposes ?? {};
    const named = ctx.step.secrets.map((name) => (purposes[name] === undefined ? name : `${name} (${purposes[name]})`));
    sections.push(
      `Secrets this step may type, by name with type_secret: ${named.join(', ')}. Their values are never shown; never type a secret's name as plain text.`,
    );
  }
  if ((options.includeContext ?? true) && ctx.agentContext.trim() !== '') sections.push(`About the app:\n${ctx.agentContext.trim()}`);
  if (ctx.ledger.length > 0) {
    const shown = ctx.ledger.slice(-LEDGER_LIMIT);
    const lines = shown.map(
      (entry) => `${entry.index + 1}. ${entry.kind} "${clip(entry.instruction, SUMMARY_LIMIT)}" → ${entry.status}: ${clip(entry.summary, SUMMARY_LIMIT)}`,
    );
    const skipped = ctx.ledger.length - shown.length;
    sections.push(['Earlier steps of this test:', ...(skipped > 0 ? [`(${skipped} earlier steps not shown)`] : []), ...lines].join('\n'));
  }
  if (ctx.replayedPrefix !== undefined) sections.push(describeReplayedPrefix(ctx.replayedPrefix));
  return sections.join('\n\n');
}

/**
 * The opening user message: the step brief, then the current screen, observed now. Use it as
 * (or inside) a tool loop's `buildPrompt`.
 */
export async function buildOpeningPrompt(ctx: StepContext, options: StepBriefOptions = {}): Promise<ModelMessage[]> {
  const observation = await ctx.observe();
  // Said where it shows, not in the system prompt every request of every step repeats.
  const hidden = ctx.step.secrets.length > 0 || /value=<secure>|<secret:/.test(observation.text);
  const heading = hidden ? 'The screen now (value=<secure> is a password field, <secret:name> a hidden value):' : 'The screen now:';
  return [
    {
      role: 'user',
      content: [
        { type: 'text', text: describeStep(ctx, options) },
        { type: 'text', text: `${heading}\n${observation.text}` },
      ],
    },
  ];
}
