/**
 * Renaming a test, through the built binary in a fresh git repository outside this one: record
 * an act and the assert after it (a scripted agent that asks a counting model on every live
 * step), rename the test in its file, and `e2e replay` misses, naming the old title and the
 * `e2e cache mv` command to run; that command moves both entries, `cache diff HEAD~1` shows them
 * re-keyed (not added + removed), and `e2e replay` replays everything with no model call. A
 * second `mv` is refused with exit 2 and changes nothing.
 *
 * The steps build on each other, in order.
 */
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FileCacheStore } from '../../cache-format/index.js';
import { commitAll, git } from '../support/cache-fixtures.js';
import { contentsOf } from '../support/directory-snapshot.js';
import type { StaticServer } from '../support/static-server.js';
import { ensureBuilt } from '../runner/support/build.js';
import { runE2E, type E2ERun } from '../runner/support/e2e-process.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { serveApp } from '../runner/support/fixture-servers.js';
import { linkedProject } from '../runner/support/linked-project.js';

const SCRIPTED = fileURLToPath(new URL('../runner/fixtures/shared/scripted.ts', import.meta.url));
const COUNTING_MODEL = fileURLToPath(new URL('./fixtures/replay-cache/counting-model.ts', import.meta.url));

const CONFIG = `import { defineConfig, web } from 'e2e';
import { countingModel } from './support/counting-model.js';
import { find, look, scripted } from './support/scripted.js';

async function askModel(ctx) {
  await ctx.model?.doGenerate({ prompt: [{ role: 'user', content: [{ type: 'text', text: ctx.step.instruction }] }] });
}

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  targets: [{ name: 'web', engine: web(), app: { url: process.env['E2E_FIXTURE_APP_URL'] ?? 'http://127.0.0.1:9' } }],
  agents: {
    default: {
      model: countingModel(process.env['E2E_FIXTURE_MODEL_LOG']),
      context: 'A todo app.',
      executor: scripted('rename-script', {
        'add a todo "Buy milk"': async (ctx) => {
          await askModel(ctx);
          await ctx.actions.type(find(await look(ctx), 'textbox', 'New todo'), 'Buy milk', { replace: true });
          await ctx.actions.tap(find(await look(ctx), 'button', 'Add'));
          return { status: 'passed', summary: 'Added "Buy milk".' };
        },
        'one todo is open': async (ctx) => {
          await askModel(ctx);
          const screen = await look(ctx);
          const item = find(screen, 'checkbox', 'Done: Buy milk');
          return { status: 'passed', summary: 'One todo is open.', evidence: { nodeIds: [item.id], revision: screen.revision, cacheable: true } };
        },
      }, { cache: 'inherit' }),
    },
  },
});
`;

const OLD_TITLE = 'adds';
const NEW_TITLE = 'adds a todo';
const OLD_ID = `tests/todos.e2e.ts::todos › ${OLD_TITLE}`;
const NEW_ID = `tests/todos.e2e.ts::todos › ${NEW_TITLE}`;
/** The config's cache folder, named with `--cache-dir` where the config is not the point (each config lookup is a `playwright test --list`). */
const CACHE_DIR = join('.e2e', 'cache');

function testFile(title: string): string {
  return `import { expect, test } from 'e2e';

test.describe('todos', () => {
  test(${JSON.stringify(title)}, async ({ app, agent, screen }) => {
    await app.open('/todo.html');
    await agent.act('add a todo "Buy milk"');
    await agent.assert('one todo is open');
    await expect(screen.getByRole('listitem')).toHaveText('Buy milk');
  });
});
`;
}

/** A fresh project in a git repository, `e2e` linked to this repository. */
function makeProject(): string {
  const project = linkedProject('rename-test');
  writeFileSync(join(project, '.gitignore'), 'node_modules/\n.e2e/*\n!.e2e/cache/\ntest-results/\n');
  writeFileSync(join(project, 'e2e.config.ts'), CONFIG);
  mkdirSync(join(project, 'support'));
  writeFileSync(join(project, 'support', 'scripted.ts'), readFileSync(SCRIPTED, 'utf8'));
  writeFileSync(join(project, 'support', 'counting-model.ts'), readFileSync(COUNTING_MODEL, 'utf8'));
  mkdirSync(join(project, 'tests'));
  writeFileSync(join(project, 'tests', 'todos.e2e.ts'), testFile(OLD_TITLE));
  git(project, 'init', '-q');
  return project;
}

let project: string;
let server: StaticServer;
let modelLog: string;

function env(): Record<string, string> {
  return { E2E_FIXTURE_APP_URL: server.origin, E2E_FIXTURE_MODEL_LOG: modelLog };
}

function modelCalls(): number {
  return existsSync(modelLog) ? readFileSync(modelLog, 'utf8').split('\n').filter((line) => line !== '').length : 0;
}

function output(run: E2ERun): string {
  return `${run.stdout}\n${run.stderr}`;
}

function e2e(args: string[]): Promise<E2ERun> {
  return runE2E(args, { cwd: project, env: env() });
}

function cacheFolder(): string {
  return join(project, '.e2e', 'cache');
}

beforeAll(async () => {
  ensureBuilt();
  project = makeProject();
  modelLog = join(project, 'model-calls.log');
  server = await serveApp();
}, scaledTimeout(300_000));

afterAll(async () => {
  await server?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

describe('renaming a recorded test, through the e2e binary', () => {
  it('records the act and the assert after it under the old title', async () => {
    const run = await e2e(['record']);
    expect(run.exitCode, output(run)).toBe(0);
    const steps = run.report?.tests[0]?.attempts.at(-1)?.steps ?? [];
    expect(steps.map((step) => [step.kind, step.cache?.write])).toEqual([
      ['act', 'saved'],
      ['assert', 'saved'],
    ]);
    expect(modelCalls()).toBe(2);
    commitAll(project, 'recorded "adds"');
  }, scaledTimeout(120_000));

  it('misses after the rename, naming the old title and the exact cache mv command, with no model call', async () => {
    writeFileSync(join(project, 'tests', 'todos.e2e.ts'), testFile(NEW_TITLE));
    const before = contentsOf(cacheFolder());
    const run = await e2e(['replay']);
    expect(run.exitCode, output(run)).toBe(2);
    const [act] = run.report?.tests[0]?.attempts.at(-1)?.steps ?? [];
    expect(act).toMatchObject({ status: 'blocked', errorCode: 'REPLAY_STALE', modelCalls: 0, cache: { mode: 'missed', reason: 'no-entry' } });
    expect(act?.cache?.detail).toContain(`but ${JSON.stringify(OLD_ID)} in the same file has one for the same instruction`);
    expect(output(run)).toContain(`\`e2e cache mv '${OLD_ID}' '${NEW_ID}'\``);
    expect(modelCalls()).toBe(2);
    expect(contentsOf(cacheFolder())).toEqual(before);
  }, scaledTimeout(120_000));

  it('moves both entries with the suggested command, and cache diff shows them re-keyed', async () => {
    const dryRun = await e2e(['cache', 'mv', OLD_ID, NEW_ID, '--dry-run', '--cache-dir', CACHE_DIR]);
    expect(dryRun.exitCode, output(dryRun)).toBe(0);
    expect(dryRun.stdout).toContain(`Would move 2 entries of ${OLD_ID} to ${NEW_ID}`);

    const moved = await e2e(['cache', 'mv', OLD_ID, NEW_ID, '--json']);
    expect(moved.exitCode, output(moved)).toBe(0);
    const result = JSON.parse(moved.stdout) as { moved: Array<{ kind: string; status: string }> };
    expect(result.moved.map((entry) => [entry.kind, entry.status])).toEqual([
      ['act', 'moved'],
      ['assert', 'moved'],
    ]);
    const refs = await new FileCacheStore(cacheFolder(), { readOnly: true }).list();
    expect(refs).toHaveLength(2);
    commitAll(project, 'renamed "adds" to "adds a todo"');

    const diff = await e2e(['cache', 'diff', 'HEAD~1', 'HEAD', '--cache-dir', CACHE_DIR]);
    expect(diff.exitCode, output(diff)).toBe(0);
    expect(diff.stdout.split('\n')[0]).toBe('Cache diff HEAD~1 → HEAD: 0 changed, 2 re-keyed, 0 added, 0 removed, 0 unchanged');
    expect(diff.stdout).toContain(`${NEW_ID}\n  re-keyed  act "add a todo \\"Buy milk\\"" [web]`);
    expect(diff.stdout).toContain(`    test id changed: ${OLD_ID} → ::todos › ${NEW_TITLE}\n    same recording`);
    expect(diff.stdout).toContain('re-keyed  assert "one todo is open" [web]');
  }, scaledTimeout(120_000));

  it('replays the renamed test with no model call: every step replayed, nothing missed', async () => {
    const run = await e2e(['replay']);
    expect(run.exitCode, output(run)).toBe(0);
    const steps = run.report?.tests[0]?.attempts.at(-1)?.steps ?? [];
    expect(steps.map((step) => [step.kind, step.cache?.mode])).toEqual([
      ['act', 'self-finalized'],
      ['assert', 'self-finalized'],
    ]);
    expect(run.report?.summary).toMatchObject({ modelCalls: 0, cache: { missed: 0, handedOff: 0 } });
    expect(modelCalls()).toBe(2);
  }, scaledTimeout(120_000));

  it('refuses a second move with exit 2 and a stable code, changing nothing', async () => {
    const before = contentsOf(cacheFolder());
    const again = await e2e(['cache', 'mv', OLD_ID, NEW_ID, '--cache-dir', CACHE_DIR]);
    expect(again.exitCode, output(again)).toBe(2);
    expect(again.stdout).toBe('');
    expect(again.stderr).toBe(
      `error: cache mv refused, nothing was changed: the test \`${OLD_ID}\` has no entries in ${cacheFolder()} and \`${NEW_ID}\` has entries (moved already?); \`e2e cache ls\` lists the tests.\n`,
    );
    expect(contentsOf(cacheFolder())).toEqual(before);
  }, scaledTimeout(60_000));
});
