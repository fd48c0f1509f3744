/**
 * Through the real binary: `e2e record` on a page that echoes a typed secret
 * into its text, a URL query (`history.replaceState`), the title and the console. The app
 * server receives the real value, the step is verified and saved to the cache, and the value
 * appears nowhere the run wrote (the cache folder, report.json, the HTML report with its
 * embedded archive opened, test results, the run ledger) nor in stdout or stderr, in raw,
 * URL-encoded, base64 or escaped form, in any letter case.
 */
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { servePagesRecording } from '../support/pages.js';
import type { StaticServer } from '../support/static-server.js';
import { ensureBuilt } from './support/build.js';
import { runE2E, type E2ERun } from './support/e2e-process.js';
import { countScanned, filesUnder, findLeaks, leakForms, textsUnder } from './support/secret-scan.js';
import { scaledTimeout } from '../support/load-scaled.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/secret-echo', import.meta.url));
const WRITTEN = join(FIXTURE, '.e2e');
/** A space, `+`, `/`, quotes, `&` and mixed case: every encoding differs from the raw value. */
const CANARY = 'Ec7 Canary+Tok/93 "q\'&';

let server: StaticServer;
let received: string[];
let run: E2ERun;

beforeAll(async () => {
  ensureBuilt();
  rmSync(WRITTEN, { recursive: true, force: true });
  ({ server, received } = await servePagesRecording());
  run = await runE2E(['record'], { cwd: FIXTURE, env: { E2E_FIXTURE_APP_URL: server.origin, E2E_SECRET_CANARY: CANARY } });
}, scaledTimeout(120_000));

afterAll(async () => {
  await server?.close();
});

describe('a secret the page echoes, recorded through the e2e binary', () => {
  it('passes, verifies the step and saves it to the cache', () => {
    expect(run.exitCode, `${run.stdout}\n${run.stderr}`).toBe(0);
    const [test] = run.report?.tests ?? [];
    expect(test?.outcome).toBe('expected');
    const step = test?.attempts.at(-1)?.steps[0];
    expect(step).toMatchObject({ instruction: 'type the token <secret:canary> and submit', status: 'passed' });
    expect(step?.cache).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
    expect(existsSync(join(WRITTEN, 'cache'))).toBe(true);
    expect(filesUnder(join(WRITTEN, 'cache')).length).toBeGreaterThan(0);
  });

  it('reaches the app server as the real value', () => {
    expect(received).toEqual([CANARY]);
  });

  it('appears in no file the run wrote and in no output, in any encoding or case', () => {
    // The scanner finds every form it claims to, so an empty result means something.
    for (const form of leakForms(CANARY)) expect(findLeaks(CANARY, [], { probe: `..${form.toUpperCase()}..` })).not.toEqual([]);
    for (const part of ['cache', 'report.json', 'html-report', 'test-results']) expect(existsSync(join(WRITTEN, part)), part).toBe(true);
    expect(countScanned([WRITTEN])).toBeGreaterThan(5);
    expect(findLeaks(CANARY, [WRITTEN], { stdout: run.stdout, stderr: run.stderr })).toEqual([]);
  });

  it("keeps no piece of it that the engine's clip left before `…` in what an expect looked at", () => {
    const texts = textsUnder([join(WRITTEN, 'cache')]).map(({ text }) => text.toLowerCase());
    // The status the expect looked at reached the entry, clipped, without the value's start.
    expect(texts.some((text) => text.includes(`${'x'.repeat(40)}`))).toBe(true);
    expect(texts.filter((text) => text.includes(`xxxx${CANARY.slice(0, 3).toLowerCase()}`))).toEqual([]);
  });

  it('is redacted, not dropped: the saved entry holds the echo as <secret:canary>', () => {
    expect(findLeaks('You typed <secret:canary>', [join(WRITTEN, 'cache')])).not.toEqual([]);
  });
});
