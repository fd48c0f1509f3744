/**
 * The artifact calls of the executor contract, through the binary (the seed
 * `custom-executors.md`): `ctx.attachTranscript` attaches to the Playwright result only under
 * `--debug`, and `ctx.attachScreenshot` resolves with an id that names an attachment of the
 * Playwright result.
 */
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { scaledTimeout } from '../support/load-scaled.js';
import { servePagesRecording } from '../support/pages.js';
import type { StaticServer } from '../support/static-server.js';
import { ensureBuilt } from './support/build.js';
import { runE2E, type E2ERun } from './support/e2e-process.js';
import { linkedProject } from './support/linked-project.js';

const SCRIPTED = fileURLToPath(new URL('./fixtures/shared/scripted.ts', import.meta.url));

const CONFIG = `import { defineConfig, web } from 'e2e';
import { scripted } from './support/scripted.js';

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  reporter: [['json', { outputFile: 'results.json' }]],
  targets: [{ name: 'web', engine: web(), app: { url: process.env['E2E_FIXTURE_APP_URL'] ?? 'http://127.0.0.1:9' } }],
  agents: {
    default: {
      executor: scripted('artifacts', {
        'keep what the form looks like': async (ctx) => {
          const seen = await ctx.observe({ pixels: true });
          ctx.attachTranscript('model: I looked at the form');
          const id = seen.pixels === undefined ? 'no pixels' : await ctx.attachScreenshot(seen.pixels, 'the form as the executor saw it');
          return { status: 'passed', summary: 'shot ' + id };
        },
      }),
    },
  },
});
`;

const TESTS = `import { test } from 'e2e';

test('keeps a screenshot and a transcript', async ({ app, agent }) => {
  await app.open('/login.html');
  await agent.act('keep what the form looks like');
});
`;

interface JsonAttachment {
  name: string;
  contentType: string;
}

/** The attachments of the one test's last result in Playwright's JSON report. */
function playwrightAttachments(project: string): JsonAttachment[] {
  const json = JSON.parse(readFileSync(join(project, 'results.json'), 'utf8')) as {
    suites: Array<{ specs: Array<{ tests: Array<{ results: Array<{ attachments: JsonAttachment[] }> }> }> }>;
  };
  return json.suites[0]!.specs[0]!.tests[0]!.results.at(-1)!.attachments;
}

let project: string;
let server: StaticServer;
let plain: { run: E2ERun; attachments: JsonAttachment[] };
let debug: { run: E2ERun; attachments: JsonAttachment[] };

beforeAll(async () => {
  ensureBuilt();
  project = linkedProject('executor-artifacts');
  writeFileSync(join(project, 'e2e.config.ts'), CONFIG);
  mkdirSync(join(project, 'support'));
  writeFileSync(join(project, 'support', 'scripted.ts'), readFileSync(SCRIPTED, 'utf8'));
  mkdirSync(join(project, 'tests'));
  writeFileSync(join(project, 'tests', 'artifacts.e2e.ts'), TESTS);
  ({ server } = await servePagesRecording());
  const env = { E2E_FIXTURE_APP_URL: server.origin };
  const first = await runE2E(['run', '--no-cache'], { cwd: project, env });
  plain = { run: first, attachments: playwrightAttachments(project) };
  const second = await runE2E(['run', '--no-cache', '--debug'], { cwd: project, env });
  debug = { run: second, attachments: playwrightAttachments(project) };
}, scaledTimeout(180_000));

afterAll(async () => {
  await server?.close();
  if (project !== undefined) rmSync(project, { recursive: true, force: true });
});

describe('executor artifacts on the Playwright result', () => {
  it('attaches the transcript only under --debug', () => {
    expect([plain.run.exitCode, debug.run.exitCode], plain.run.stdout + plain.run.stderr).toEqual([0, 0]);
    const transcripts = (attachments: JsonAttachment[]): JsonAttachment[] => attachments.filter((attachment) => attachment.contentType === 'text/plain');
    expect(transcripts(plain.attachments)).toEqual([]);
    expect(transcripts(debug.attachments).map((attachment) => attachment.name)).toEqual([expect.stringMatching(/^e2e-transcript-\d+$/)]);
  });

  it('resolves attachScreenshot with the id of an attachment of the Playwright result', () => {
    for (const { run, attachments } of [plain, debug]) {
      const step = run.report?.tests[0]?.attempts.at(-1)?.steps[0];
      const id = /^shot (.+)$/.exec(step?.summary ?? '')?.[1];
      expect(id).toMatch(/^e2e-screenshot-\d+$/);
      const named = attachments.find((attachment) => attachment.name === id);
      expect(named?.contentType).toBe('image/png');
    }
  });
});
