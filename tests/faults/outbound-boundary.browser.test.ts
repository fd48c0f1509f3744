/**
 * Redaction happens once, where text leaves the attempt (`secrets/outbound.ts`). An executor
 * standing in for a model that repeats a secret canary everywhere it can (its verdict summary,
 * a `--debug` line, its transcript) and a verification quoting it make the canary reach each
 * way out: the report's records, the transcript, the console and the cache entry the step
 * writes. The boundary counts what left by each way and how much of it redaction changed: each
 * record holding the canary is redacted there exactly once (had anything inside the attempt
 * redacted it on its own, the boundary would have found nothing to change), and the canary is
 * in nothing the attempt handed out or wrote, in any form.
 */
import { describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import type { ScreenNode } from '../../contract/engine.js';
import type { StepContext, StepExecutor } from '../../contract/step-contract.js';
import { startAttempt } from '../support/attempt-harness.js';
import { find } from '../support/hand-built-tree.js';
import { liveScreenPerFile, type LiveScreen } from '../support/live-screen.js';
import { allNodes } from '../support/screen-tree.js';
import { tempFolders } from '../support/temp-folders.js';
import { findLeaks } from '../runner/support/secret-scan.js';

/** Mixed case, a space, `+`, `/`, quotes, `&`, `<`: every encoding differs from the raw value. */
const CANARY = 'Ob7 Canary+Out/19 "b"&<c>';

let live: LiveScreen;
liveScreenPerFile((started) => (live = started), { '/todos.html': { page: 'todos.html', knobs: 'delete=0&stamp=0' } });
const tempFolder = tempFolders('e2e-outbound-');

async function tree(context: StepContext): Promise<ScreenNode> {
  return (await context.observe({ tree: true })).tree!;
}

/** Adds a todo as a model would, then repeats the canary in every text it hands back. */
const leakyExecutor: StepExecutor = {
  name: 'leaky',
  version: '1.0.0',
  async runStep(context) {
    await context.actions.type({ id: find(await tree(context), 'textbox', 'New todo').id }, 'Buy milk', { replace: true });
    const add = allNodes(await tree(context)).find((node) => node.role === 'button' && node.name === 'Add')!;
    await context.actions.tap({ id: add.id });
    context.debug?.(`the model read ${CANARY} somewhere`);
    context.attachTranscript(`model: the password is ${CANARY}`);
    return { status: 'passed', summary: `Added Buy milk; the page once said ${CANARY}.` };
  },
};

describe('the outbound boundary', () => {
  it('redacts a canary once on each way out of the attempt, and nothing it hands out or writes holds it', async () => {
    await live.open('todos.html');
    const folder = tempFolder();
    const attempt = startAttempt(live, { cache: { store: new FileCacheStore(folder) }, executor: leakyExecutor, secrets: { canary: CANARY }, debug: true });
    const outcome = await attempt.act('add a todo {title}', { title: 'Buy milk' });
    expect(outcome.verdict).toMatchObject({ status: 'passed', summary: 'Added Buy milk; the page once said <secret:canary>.' });
    attempt.runner.recordVerification('expect', `toHaveText("${CANARY}")`);
    const [written] = await attempt.finish();
    expect(written?.outcome).toMatchObject({ write: 'saved' });

    const { outbound } = attempt.runner;
    // Every way out was taken: step and verification records, a transcript, console lines, an entry checked before it was written.
    const counts = outbound.counts();
    for (const sink of ['report', 'transcript', 'console', 'cache-entry'] as const) expect(counts[sink], sink).toBeGreaterThan(0);
    // One step record and one verification record carry it, each redacted once, at the boundary; the transcript once;
    // the console twice (the executor's line and the runner's line of the step's verdict); the entry needed nothing.
    expect(outbound.redactions()).toEqual({ report: 2, test: 0, transcript: 1, console: 2, 'cache-entry': 0 });
    expect(attempt.runner.records[0]?.summary).toBe('Added Buy milk; the page once said <secret:canary>.');
    expect(attempt.runner.verifications.at(-1)?.detail).toBe('toHaveText("<secret:canary>")');
    expect(attempt.handouts.transcripts).toEqual(['model: the password is <secret:canary>']);
    expect(attempt.handouts.logs).toContain('debug the model read <secret:canary> somewhere');

    const handedOut = {
      payload: attempt.payload(),
      reportSteps: attempt.reportSteps(),
      logs: attempt.handouts.logs.join('\n'),
      transcripts: attempt.handouts.transcripts.join('\n'),
      outcome: JSON.stringify(outcome),
    };
    expect(findLeaks(CANARY, [folder], handedOut)).toEqual([]);
  });
});
