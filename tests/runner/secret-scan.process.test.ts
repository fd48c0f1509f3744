/**
 * The whole-run secret scan, through the built binary in a fresh project outside the
 * repository: a page echoes a typed canary into its text (raw, clipped, grouped, base64, long
 * enough for the engine to clip inside it), title, URL, console, dialogs, a download name,
 * storage, cookies, an uncaught error and network requests; a failing `expect` follows the
 * fill; a test logs, throws, names a step and attaches page text holding it; Playwright runs
 * with `trace`, `screenshot` and `video` on (the config turns video off, saying so, where
 * Playwright's ffmpeg is missing) and the list, line, dot, HTML, JUnit and JSON reporters given
 * on the command line, under `--debug`. Every file under the project (zip archives opened,
 * nested ones too) and stdout/stderr hold the canary in none of the forms the redactor claims;
 * the scan itself is shown to find each form in planted files. Long secrets (2 KiB, 64 KiB) are
 * typed by tests of their own in the same project and the same recording, then replayed by one
 * `e2e replay` of just those tests; secrets too short or common to redact are refused.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { playwrightCanRecordVideo } from '../../runner/playwright-video.js';
import { scaledTimeout } from '../support/load-scaled.js';
import { servePagesRecording } from '../support/pages.js';
import type { StaticServer } from '../support/static-server.js';
import { ensureBuilt } from './support/build.js';
import { outcomesByTitle, runE2E, type E2ERun } from './support/e2e-process.js';
import { linkedProject } from './support/linked-project.js';
import { countScanned, filesUnder, findLeaks, textsUnder } from './support/secret-scan.js';

/** Mixed case, a space, `+`, `/`, quotes, `&`, `<`: every encoding differs from the raw value. */
const CANARY = 'Sc4n Canary+Tok/57 "q\'&<z>';
const SCRIPTED = fileURLToPath(new URL('./fixtures/shared/scripted.ts', import.meta.url));

/** Playwright records video with its own ffmpeg build only, which it cannot download on this machine. */
const VIDEO = playwrightCanRecordVideo({ env: process.env });

const CONFIG = `import { defineConfig, web } from 'e2e';
import { find, look, scripted } from './support/scripted.js';

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  expect: { timeout: 1_000 },
  use: { trace: 'on', screenshot: 'on', video: 'on' },
  targets: [{ name: 'web', engine: web(), app: { url: process.env['E2E_FIXTURE_APP_URL'] ?? 'http://127.0.0.1:9' } }],
  agents: {
    default: {
      executor: scripted('secret-scan', {
        'type the token <secret:canary> and submit': async (ctx) => {
          await ctx.actions.typeSecret(find(await look(ctx), 'textbox', 'Password'), 'canary');
          await ctx.actions.tap(find(await look(ctx), 'button', 'Submit'));
          return { status: 'passed', summary: 'Submitted the token form.' };
        },
        'look at the form': async (ctx) => ({ status: 'passed', summary: \`\${(await ctx.observe()).nodeCount} nodes\` }),
      }),
    },
  },
  secrets: { canary: undefined },
});
`;

const TESTS = `import { expect, secret, test } from 'e2e';

test.beforeEach(async ({ app, agent }) => {
  await app.open('/echo.html#everywhere');
});

async function fill(agent) {
  await agent.act('type the token {token} and submit', { params: { token: secret('canary') } });
}

test('a failing expect after the fill', async ({ agent, screen }) => {
  await fill(agent);
  await expect(screen.getByRole('status').last()).toHaveText('Saved');
  await expect(screen.getByRole('status').first()).toHaveText('You typed nothing');
});

test('the test itself logs, names a step, attaches and throws the echo', async ({ agent, screen }, testInfo) => {
  await fill(agent);
  const echoed = (await screen.locator('#echo').textContent()) ?? '';
  console.log('page title: ' + (await screen.title()));
  console.error('stored: ' + (await screen.evaluate(() => localStorage.getItem('token'))));
  await test.step('saw ' + echoed, async () => {});
  await testInfo.attach('page text', { body: await screen.locator('main').innerText(), contentType: 'text/plain' });
  throw new Error('the page said: ' + echoed);
});

test('a test that types no secret keeps its trace', async ({ agent }) => {
  await agent.act('look at the form');
});
`;

/** A fresh project in the temp folder: its own node_modules of links, \`e2e\` being this repository; `more`: other test files by name. */
function makeProject(name: string, config: string, tests = TESTS, more: Record<string, string> = {}): string {
  const project = linkedProject(name);
  writeFileSync(join(project, 'e2e.config.ts'), config);
  mkdirSync(join(project, 'support'));
  writeFileSync(join(project, 'support', 'scripted.ts'), readFileSync(SCRIPTED, 'utf8'));
  mkdirSync(join(project, 'tests'));
  writeFileSync(join(project, 'tests', 'echo.e2e.ts'), tests);
  for (const [file, text] of Object.entries(more)) writeFileSync(join(project, 'tests', file), text);
  return project;
}


let project: string;
let server: StaticServer;
/** What the app received, in order, over every run of the project. */
let received: string[];
/** What it had received when the recording ended. */
let receivedInRecord: string[];
/** The environment of every run of the project. */
let scanEnv: Record<string, string>;
let run: E2ERun;

/**
 * One project, one recording: the echo tests (tests/echo.e2e.ts) and the long secrets' tests (tests/long.e2e.ts, below)
 * share its `e2e record`; the long secrets' replay comes later (`recordAndReplayLong`).
 */
beforeAll(async () => {
  ensureBuilt();
  project = makeProject('secret-scan', SCAN_CONFIG, TESTS, { 'long.e2e.ts': LONG_TESTS });
  ({ server, received } = await servePagesRecording());
  scanEnv = {
    // The reporters come from the command line, as `e2e record --reporter …` passes them to Playwright.
    PLAYWRIGHT_HTML_OUTPUT_DIR: join(project, '.e2e', 'html-report'),
    PLAYWRIGHT_HTML_OPEN: 'never',
    PLAYWRIGHT_JUNIT_OUTPUT_FILE: join(project, '.e2e', 'junit.xml'),
    PLAYWRIGHT_JSON_OUTPUT_FILE: join(project, '.e2e', 'results.json'),
    E2E_FIXTURE_APP_URL: server.origin,
    E2E_SECRET_CANARY: CANARY,
    ...Object.fromEntries(LONG_SECRETS.map(({ name, length }) => [`E2E_SECRET_${name.toUpperCase()}`, longCanary(length, length)])),
  };
  run = await runE2E(['record', '--debug', '--reporter', 'list,line,dot,html,junit,json'], { cwd: project, env: scanEnv });
  receivedInRecord = [...received];
}, scaledTimeout(300_000));

afterAll(async () => {
  await server?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

describe(`a secret echoed everywhere, with trace and screenshots on${VIDEO ? ' and video on' : ' (video off: Playwright has no ffmpeg here)'}`, () => {
  it('runs: the fill reaches the app, the failing tests fail, the clean one passes', () => {
    // The two fills of the echo tests, and one of each long secret (its own tests, below).
    const longValues = LONG_SECRETS.map(({ length }) => longCanary(length, length));
    expect([...receivedInRecord].sort(), `${run.stdout}\n${run.stderr}`).toEqual([CANARY, CANARY, ...longValues].sort());
    expect(receivedInRecord.filter((body) => body === CANARY)).toHaveLength(2);
    expect(outcomesByTitle(run)).toEqual({
      'a failing expect after the fill': 'unexpected',
      'the test itself logs, names a step, attaches and throws the echo': 'unexpected',
      'a test that types no secret keeps its trace': 'expected',
      ...Object.fromEntries(LONG_SECRETS.map(({ title }) => [title, 'expected'])),
    });
    expect(run.exitCode).toBe(1);
  });

  it('says which artifacts it withheld for which test, and why', () => {
    const kinds = `trace, screenshot${VIDEO ? ', video' : ''}, error context`;
    expect(run.stdout).toContain(`Withheld  ${kinds} of "echo.e2e.ts › a failing expect after the fill": the attempt typed a secret`);
    expect(run.stdout).toContain('of "echo.e2e.ts › the test itself logs, names a step, attaches and throws the echo"');
    expect(run.stdout).not.toContain('a test that types no secret keeps its trace": the attempt');
  });

  it(VIDEO ? 'records video for the clean test' : "turns video off, saying so, since Playwright's ffmpeg is missing here", () => {
    const notice = "Video is off: Playwright records video with its own ffmpeg, which is not installed (`npx playwright install ffmpeg`).";
    if (VIDEO) expect(filesUnder(join(project, '.e2e', 'test-results')).some((file) => file.endsWith('.webm'))).toBe(true);
    else expect(run.stdout.split(notice).length - 1).toBe(1);
  });

  it("keeps Playwright's messages, redacted, in every reporter's output", () => {
    expect(run.stdout).toContain('You typed <secret:canary>');
    expect(run.stdout).toContain('page title: Token <secret:canary>');
    const junit = readFileSync(join(project, '.e2e', 'junit.xml'), 'utf8');
    expect(junit).toContain('You typed &lt;secret:canary&gt;');
    const json = readFileSync(join(project, '.e2e', 'results.json'), 'utf8');
    expect(json).toContain('the page said: You typed <secret:canary>');
    expect(json).toContain('saw You typed <secret:canary>');
  });

  it('leaves the canary in no file under the project and in no output, in any form', () => {
    // Everything under the project; node_modules holds only links into this repository, which the scan skips.
    const folders = [project];
    const files = filesUnder(project);
    expect(files.some((file) => file.endsWith('junit.xml'))).toBe(true);
    expect(files.some((file) => file.endsWith('results.json'))).toBe(true);
    expect(files.some((file) => file.endsWith('index.html'))).toBe(true);
    // The clean test's trace is there and opened, so traces are really scanned.
    const traces = textsUnder(folders).filter(({ where }) => where.includes('trace.zip!'));
    expect(traces.length).toBeGreaterThan(3);
    expect(countScanned(folders)).toBeGreaterThan(20);
    expect(findLeaks(CANARY, folders, { stdout: run.stdout, stderr: run.stderr })).toEqual([]);
  });

  it('uses a scan that finds the canary in every form, also inside nested zip archives', () => {
    const control = mkdtempSync(join(tmpdir(), 'e2e-scan-control-'));
    try {
      const forms = [
        CANARY,
        CANARY.toUpperCase(),
        encodeURIComponent(CANARY),
        Buffer.from(`user:${CANARY}`).toString('base64'),
        Buffer.from(`u${CANARY}`).toString('base64url'),
        JSON.stringify(CANARY),
        `${CANARY.slice(0, 10)}…`,
        (CANARY.match(/.{1,4}/g) ?? []).join('-'),
      ];
      forms.forEach((form, index) => writeFileSync(join(control, `planted-${index}.txt`), `before ${form} after`));
      const inner = zipOf([{ name: 'trace.trace', body: Buffer.from(`{"title":"fill ${CANARY}"}`) }]);
      writeFileSync(join(control, 'outer.zip'), zipOf([{ name: 'inner/trace.zip', body: inner }]));
      const leaks = findLeaks(CANARY, [control]);
      for (let index = 0; index < forms.length; index++) expect(leaks.some((leak) => leak.includes(`planted-${index}.txt`)), forms[index]).toBe(true);
      expect(leaks.some((leak) => leak.includes('outer.zip!inner/trace.zip!trace.trace'))).toBe(true);
    } finally {
      rmSync(control, { recursive: true, force: true });
    }
  });
});

/** A deterministic canary of `length` characters: letters, digits, `+`, `/`, a space now and then (a key's body, a JWT). */
function longCanary(length: number, seed: number): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/ ';
  let state = seed;
  let text = 'Lc';
  while (text.length < length - 2) {
    state = (state * 1103515245 + 12345) % 2147483648;
    text += alphabet[state % alphabet.length];
  }
  return `${text.replace(/ {2,}/g, ' ')}z9`.padEnd(length, 'q');
}

/** The executor's step that types the secret `name` and submits. */
function typeSecretStep(name: string): string {
  return `        'type the token <secret:${name}> and submit': async (ctx) => {
          await ctx.actions.typeSecret(find(await look(ctx), 'textbox', 'Password'), '${name}');
          await ctx.actions.tap(find(await look(ctx), 'button', 'Submit'));
          return { status: 'passed', summary: 'Submitted the token form.' };
        },
`;
}

/**
 * The scanned project's config: {@link CONFIG} with each step recorded (`inherit`: the long secrets' steps are saved, so
 * the replay replays them; the echo tests' steps fail or verify nothing, so nothing of theirs is saved) and the long
 * secrets, `long` and `wide`, each with its own step.
 */
const SCAN_CONFIG = CONFIG.replace(/\n      }\),\n    },\n  },/, "\n      }, { cache: 'inherit' }),\n    },\n  },")
  .replace("        'look at the form':", `${typeSecretStep('long')}${typeSecretStep('wide')}        'look at the form':`)
  .replace('  secrets: { canary: undefined },', '  secrets: { canary: undefined, long: undefined, wide: undefined },');

/** The long secrets, each typed by its own test in one project: the secret's name and the title of its test. */
const LONG_SECRETS = [
  { label: '2 KiB', length: 2048, name: 'long', title: 'a 2 KiB secret is typed, echoed, verified and replayed' },
  { label: '64 KiB', length: 65536, name: 'wide', title: 'a 64 KiB secret is typed, echoed, verified and replayed' },
] as const;

const LONG_TESTS = `import { expect, secret, test } from 'e2e';

for (const [title, name] of ${JSON.stringify(LONG_SECRETS.map(({ title, name }) => [title, name]))}) {
  test(title, async ({ app, agent, screen }) => {
    await app.open('/echo.html#piece');
    await agent.act('type the token {token} and submit', { params: { token: secret(name) } });
    await expect(screen.getByRole('status').first()).toContainText('You typed ', { timeout: 5_000 });
    await expect(screen.getByRole('status').last()).toHaveText('Saved', { timeout: 5_000 });
    await expect(screen.locator('#piece')).toContainText('xxxxxxxx', { timeout: 5_000 });
  });
}
`;

/** The long secrets' runs: the project's recording (shared with the echo tests) and one replay of both long secrets' tests. */
interface LongRuns {
  project: string;
  /** What the app received over both runs. */
  typed: string[];
  recorded: E2ERun;
  replayed: E2ERun;
}

let longRuns: Promise<LongRuns> | undefined;

function recordAndReplayLong(): Promise<LongRuns> {
  longRuns ??= (async () => {
    // The echo tests need a model in replay (nothing of theirs is saved): only the long secrets' tests replay.
    const replayed = await runE2E(['replay', '--debug', '--reporter', 'list,html,junit,json', '--grep', 'secret is typed, echoed'], { cwd: project, env: scanEnv });
    return { project, typed: received.filter((body) => body !== CANARY), recorded: run, replayed };
  })();
  return longRuns;
}

for (const { label, length, name, title } of LONG_SECRETS) {
  describe(`a ${label} secret, recorded and replayed through the binary with trace and screenshots on`, () => {
    const canary = longCanary(length, length);
    let long: LongRuns;

    beforeAll(async () => {
      long = await recordAndReplayLong();
    }, scaledTimeout(600_000));

    const stepOf = (run: E2ERun) => run.report?.tests.find((test) => test.titlePath.at(-1) === title)?.attempts.at(-1)?.steps[0];

    it('records the verified step, then replays it with no model call, typing the real value each time', () => {
      expect(canary.length).toBe(length);
      expect(SCAN_CONFIG).toContain("{ cache: 'inherit' }");
      // The recording's exit code is the echo tests' (1, above); this test passed in it.
      const recordedTest = long.recorded.report?.tests.find((test) => test.titlePath.at(-1) === title);
      expect(recordedTest?.outcome, `${long.recorded.stdout}\n${long.recorded.stderr}`).toBe('expected');
      expect(stepOf(long.recorded)?.cache).toMatchObject({ mode: 'missed', write: 'saved' });
      expect(long.replayed.exitCode, `${long.replayed.stdout}\n${long.replayed.stderr}`).toBe(0);
      expect(long.replayed.report?.tests.map((test) => test.titlePath.at(-1)).sort()).toEqual(LONG_SECRETS.map((secret) => secret.title).sort());
      expect(stepOf(long.replayed)?.cache).toMatchObject({ mode: 'self-finalized' });
      // Both secrets' tests typed, in each run; this secret twice, the real value each time.
      expect(long.typed).toHaveLength(4);
      expect(long.typed.filter((body) => body.length === length)).toEqual([canary, canary]);
    });

    it('leaves the canary in no file under the project and in no output of either run, in any form', () => {
      const files = filesUnder(long.project);
      expect(files.some((file) => file.includes(`${join('.e2e', 'cache')}`))).toBe(true);
      expect(files.some((file) => file.endsWith('junit.xml'))).toBe(true);
      expect(files.some((file) => file.endsWith('index.html'))).toBe(true);
      expect(countScanned([long.project])).toBeGreaterThan(10);
      const outputs = { 'record stdout': long.recorded.stdout, 'record stderr': long.recorded.stderr, 'replay stdout': long.replayed.stdout, 'replay stderr': long.replayed.stderr };
      expect(findLeaks(canary, [long.project], outputs)).toEqual([]);
      // Redacted, not dropped: the saved entry holds the echo the expect looked at as the placeholder.
      expect(findLeaks(`You typed <secret:${name}>`, [join(long.project, '.e2e', 'cache')])).not.toEqual([]);
    });

    it('uses a scan that finds this canary raw, base64-embedded, grouped and clipped', () => {
      const planted = [canary, Buffer.from(`user:${canary}`).toString('base64'), (canary.match(/.{1,4}/g) ?? []).join('-'), `${canary.slice(0, 20)}…`];
      for (const form of planted) expect(findLeaks(canary, [], { planted: `before ${form} after` })).not.toEqual([]);
    });
  });
}

/** Secrets too short or too common to redact safely, each under its own name: the label of its test, its value, its name. */
const REFUSED = [
  ['1 character', '§', 'one'],
  ['3 characters', 'Q7z', 'three'],
  ['a common word', 'the', 'word'],
  ['a common word of 8 letters', 'Password', 'password'],
] as const;

/** One project declaring every refused secret, recorded once: the config names each secret it refuses. */
let refusedRun: Promise<E2ERun> | undefined;
let refusedProject: string | undefined;

function recordWithRefusedSecrets(): Promise<E2ERun> {
  refusedRun ??= (async () => {
    ensureBuilt();
    const secrets = REFUSED.map(([, , name]) => `${name}: undefined`).join(', ');
    refusedProject = makeProject('secret-refused', CONFIG.replace('  secrets: { canary: undefined },', `  secrets: { ${secrets} },`));
    const env: Record<string, string> = { E2E_FIXTURE_APP_URL: 'http://127.0.0.1:9' };
    for (const [, value, name] of REFUSED) env[`E2E_SECRET_${name.toUpperCase()}`] = value;
    return runE2E(['record'], { cwd: refusedProject, env });
  })();
  return refusedRun;
}

afterAll(() => {
  if (refusedProject !== undefined) rmSync(refusedProject, { recursive: true, force: true });
});

describe('a secret too short or too common to redact safely, through the binary', () => {
  for (const [label, , name] of REFUSED) {
    it(`is refused before any test runs (${label}): exit 2, INVALID_CONFIG naming the secret, output not garbled`, async () => {
      const run = await recordWithRefusedSecrets();
      const output = `${run.stdout}\n${run.stderr}`;
      expect(run.exitCode, output).toBe(2);
      expect(output).toContain('INVALID_CONFIG');
      expect(output).toContain(`the secret \`${name}\` cannot be redacted safely`);
      expect(output).not.toContain('<secret:');
      expect(run.report?.tests ?? []).toEqual([]);
    }, scaledTimeout(120_000));
  }
});

/** `size` zero bytes with each field `[offset, value, bytes]` written over them, little-endian. */
function header(size: number, fields: Array<[offset: number, value: number, bytes: 2 | 4]>): Buffer {
  const buffer = Buffer.alloc(size);
  for (const [offset, value, bytes] of fields) buffer.writeUIntLE(value, offset, bytes);
  return buffer;
}

/** A minimal zip archive (deflated entries), to plant a nested archive for the control. */
function zipOf(entries: Array<{ name: string; body: Buffer }>): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const { name, body } of entries) {
    const data = deflateRawSync(body);
    const nameBytes = Buffer.from(name, 'utf8');
    // Signature, version needed (and made by), method 8 (deflate), sizes, name length, local offset.
    const local = header(30, [[0, 0x04034b50, 4], [4, 20, 2], [8, 8, 2], [18, data.length, 4], [22, body.length, 4], [26, nameBytes.length, 2]]);
    const central = header(46, [[0, 0x02014b50, 4], [4, 20, 2], [6, 20, 2], [10, 8, 2], [20, data.length, 4], [24, body.length, 4], [28, nameBytes.length, 2], [42, offset, 4]]);
    locals.push(local, nameBytes, data);
    centrals.push(central, nameBytes);
    offset += 30 + nameBytes.length + data.length;
  }
  const directory = Buffer.concat(centrals);
  const end = header(22, [[0, 0x06054b50, 4], [8, entries.length, 2], [10, entries.length, 2], [12, directory.length, 4], [16, offset, 4]]);
  return Buffer.concat([...locals, directory, end]);
}
