/**
 * A user's own engine from the packed tarball (issue 33, "Users' engines run"): in a fresh ESM
 * project that installed e2e as a user does, an engine written against `e2e` and `e2e/engine`
 * alone wraps `web()` and declares fewer verbs. The project type-checks with `skipLibCheck: false`
 * and the AI SDK out of reach (an engine author may have no model); the installed binary records
 * with the browser the engine's host delegate asks for, the step may use only the engine's verbs
 * (the others are refused `UNSUPPORTED_CAPABILITY`), and the replay runs with no executor call.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StaticServer } from '../support/static-server.js';
import { ROOT } from '../runner/support/build.js';
import { serveApp } from '../runner/support/fixture-servers.js';
import { copyOfTemplate, reportOf, runE2E, TODO_TEST } from './support/packed-project.js';
import { scaledTimeout } from '../support/load-scaled.js';

/** The user's config: the wrapper engine and a scripted executor (no model) that notes each call in a file. */
const CONFIG = `import { appendFileSync } from 'node:fs';
import { defineConfig, web, type StepExecutor } from 'e2e';
import type { Engine } from 'e2e/engine';

// The web engine with fewer verbs: no navigate, no point verbs. Spreading web() carries its host
// delegate, so the test host starts the browser web() asks for.
const lite: Engine = { ...web(), name: 'web-lite', verbs: ['tap', 'type', 'press', 'screenshot'] };

/** The code a policed call failed with, or done. */
async function codeOf(work: Promise<unknown>): Promise<string> {
  return work.then(
    () => 'done',
    (error: unknown) => String((error as { code?: unknown }).code ?? error),
  );
}

const typist: StepExecutor = {
  name: 'typist',
  version: '1',
  async runStep(ctx) {
    appendFileSync(process.env.E2E_INSTALL_CALLS ?? 'calls.txt', 'called\\n');
    const screen = await ctx.observe();
    const box = /#(\\S+) textbox "New todo"/.exec(screen.text)?.[1];
    const todo = /"([^"]+)"/.exec(ctx.step.instruction)?.[1];
    if (box === undefined || todo === undefined) return { status: 'failed', summary: 'No new-todo box or no todo named.' };
    const navigate = await codeOf(ctx.actions.navigate('/todo.html'));
    const doubleTap = await codeOf(ctx.actions.doubleTap({ id: box }));
    await ctx.actions.type({ id: box }, todo, { replace: true });
    await ctx.actions.press({ id: box }, 'Enter');
    return { status: 'passed', summary: \`platform \${ctx.target.platform}; verbs \${ctx.target.verbs.join(' ')}; navigate \${navigate}; doubleTap \${doubleTap}; added \${todo}\` };
  },
};

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  targets: [{ name: 'lite', engine: lite, app: { url: process.env.E2E_INSTALL_APP_URL ?? 'http://127.0.0.1:9' } }],
  agents: { default: { executor: typist, context: 'A todo list.' } },
});
`;

/** Strict type checking of the user's files, libraries included, with the AI SDK mapped to nothing. */
const TSCONFIG = {
  compilerOptions: {
    target: 'ES2022',
    module: 'NodeNext',
    moduleResolution: 'NodeNext',
    strict: true,
    skipLibCheck: false,
    noEmit: true,
    types: ['node'],
    // The project installed no @types/node of its own; Playwright's declarations need it.
    typeRoots: [join(ROOT, 'node_modules', '@types')],
    paths: { ai: ['./absent/ai'], 'ai/*': ['./absent/ai'], '@ai-sdk/*': ['./absent/ai-sdk'] },
  },
  files: ['e2e.config.ts', 'tests/todo.e2e.ts'],
};

let app: StaticServer;
let project: string;

beforeAll(async () => {
  app = await serveApp();
  project = copyOfTemplate('user-engine', 'module');
}, scaledTimeout(60_000));

afterAll(async () => {
  await app?.close();
});

describe("a user's engine that wraps web(), from the packed tarball in a fresh project", () => {
  it('type-checks without the AI SDK, records with the browser it asks for, may use only its verbs, and replays with no executor call', async () => {
    writeFileSync(join(project, 'e2e.config.ts'), CONFIG);
    mkdirSync(join(project, 'tests'), { recursive: true });
    writeFileSync(join(project, 'tests', 'todo.e2e.ts'), TODO_TEST);
    writeFileSync(join(project, 'tsconfig.json'), `${JSON.stringify(TSCONFIG, null, 2)}\n`);
    const calls = join(project, 'calls.txt');
    const env = { E2E_INSTALL_APP_URL: app.origin, E2E_INSTALL_CALLS: calls };

    const typed = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', project], { cwd: project, encoding: 'utf8' });
    expect(`${typed.stdout}${typed.stderr}`).toBe('');
    expect(typed.status).toBe(0);

    const record = await runE2E(project, ['record'], env);
    expect(record.code, record.stdout + record.stderr).toBe(0);
    const step = reportOf(project).tests.find((test) => test.titlePath.at(-1) === 'adds a todo')?.attempts.at(-1)?.steps[0];
    expect(step).toMatchObject({ status: 'passed', cache: { mode: 'missed', write: 'saved' } });
    expect(step?.summary).toBe('platform web; verbs tap type press screenshot; navigate UNSUPPORTED_CAPABILITY; doubleTap UNSUPPORTED_CAPABILITY; added Buy milk');
    expect(readFileSync(calls, 'utf8')).toBe('called\n');

    const replay = await runE2E(project, ['replay'], env);
    expect(replay.code, replay.stdout + replay.stderr).toBe(0);
    expect(replay.stdout + replay.stderr).toContain('Cache  1 replayed · 0 handed off · 0 recorded · 0 missed · 0 unverified');
    // The replay called no executor: the file holds the recording's one call.
    expect(existsSync(calls) && readFileSync(calls, 'utf8')).toBe('called\n');
  }, scaledTimeout(300_000));
});
