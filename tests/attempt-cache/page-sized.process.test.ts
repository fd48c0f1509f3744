/**
 * Pages of any size, from observe to `cache show`: an act step on the memory app with a list of
 * 200,000 rows, and one with a chain nested 5,000 deep, is recorded through the real step runner
 * and attempt cache (a secret configured, so every screen is redacted), replayed with no
 * executor call, and shown by the built `e2e cache show` binary and in process. No walk on the
 * way may overflow the stack. Process tier: it runs the binary, and its 200,000-row step is too
 * heavy for the unit tier's minute.
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { renderCacheShow, showCacheEntry } from '../../review/cache-show.js';
import type { StepExecutor } from '../../contract/step-contract.js';
import { memoryApp, onMemoryApp } from '../executor/support/memory-app.js';
import { startAttempt } from '../support/attempt-harness.js';
import { DEEP_LEVELS, WIDE_SIBLINGS } from '../support/page-sized-trees.js';
import { tempFolders } from '../support/temp-folders.js';
import { runE2E } from '../runner/support/e2e-process.js';

const tempFolder = tempFolders('e2e-page-sized-');

/** Taps the node with `id`, read off the screen text, found by `words` when the bounded screen left it out; then passes. */
function tapping(id: string, words: string, counter: { calls: number }): StepExecutor {
  return {
    name: 'scripted',
    version: '1.0.0',
    async runStep(context) {
      counter.calls++;
      let screen = await context.observe();
      if (!screen.text.includes(`#${id} `)) screen = await context.observe({ find: words });
      if (!screen.text.includes(`#${id} `)) return { status: 'failed', errorCode: 'LOCATOR_NOT_FOUND', summary: `#${id} is not on the screen.` };
      await context.actions.tap({ id });
      return { status: 'passed', summary: `Tapped #${id}.` };
    },
  };
}

describe('a step on a page-sized screen, from observe to cache show', () => {
  for (const [shape, options, target, instruction] of [
    [`${WIDE_SIBLINGS.toLocaleString('en-US')} siblings`, { filler: WIDE_SIBLINGS }, 'deepest', 'press the deepest button'],
    [`nesting ${DEEP_LEVELS.toLocaleString('en-US')} deep`, { nesting: DEEP_LEVELS }, 'deepest', 'press the deepest button'],
  ] as const) {
    it(`records, replays model-free and shows a step on a page with ${shape}`, async () => {
      const root = tempFolder();
      const location = { cacheDirectory: join(root, 'cache'), hitsDirectory: join(root, 'hits') };
      const store = new FileCacheStore(location.cacheDirectory, { hitsDirectory: location.hitsDirectory });
      const counter = { calls: 0 };
      // The wide page gets a chain one level deep, so both pages have the same button to press.
      const appOptions = 'filler' in options ? { ...options, nesting: 1 } : options;
      const attempt = (app = memoryApp(appOptions)) =>
        startAttempt(onMemoryApp(app), { executor: tapping(target, 'Deepest', counter), cache: { store }, secrets: { token: 'tok-123456' } });

      const recording = attempt();
      const recorded = await recording.act(instruction);
      expect(recorded.verdict.status).toBe('passed');
      recording.verify();
      const [write] = await recording.finish();
      expect(write?.outcome.write).toBe('saved');

      const replay = attempt();
      const replayed = await replay.act(instruction);
      expect(replayed.verdict.status).toBe('passed');
      expect(replayed.cache?.mode).toBe('self-finalized');
      expect(counter.calls).toBe(1);
      await replay.finish();

      const prefix = write!.outcome.entry!.slice(0, 12);
      const shown = renderCacheShow(await showCacheEntry(location, prefix));
      expect(shown).toContain('1. tap button "Deepest"');
      expect(shown).toContain('appeared: status "Deepest pressed"');
      const cli = await runE2E(['cache', 'show', prefix, '--cache-dir', location.cacheDirectory, '--hits-dir', location.hitsDirectory], { cwd: root });
      expect(cli.stderr).toBe('');
      expect(cli.exitCode).toBe(0);
      expect(cli.stdout.trimEnd()).toBe(shown.trimEnd());
    });
  }
});
