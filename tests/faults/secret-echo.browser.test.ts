/**
 * A secret canary, typed with `typeSecret` during a recorded flow and echoed
 * by the page into its text, a URL query, the title and the console, is found in no form
 * (raw, URL-encoded, JSON-escaped, base64, any case) in anything the tool wrote or handed out:
 * the cache folder, the report payload and report steps, transcripts and screenshots, logger
 * lines, observations and every prompt the model was sent. Replay from the cache still types
 * the real value: the page posts it to the server, which records it.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from '@playwright/test';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createAgent } from '../../executor/create-agent.js';
import { FileCacheStore } from '../../cache-format/index.js';
import type { Engine, EngineInstance } from '../../contract/engine.js';
import { secret } from '../../secrets/vault.js';
import type { Observation, StepExecutor } from '../../contract/step-contract.js';
import { testWeb } from '../support/test-browser.js';
import { filesUnder } from '../support/directory-snapshot.js';
import { servePagesRecording } from '../support/pages.js';
import type { StaticServer } from '../support/static-server.js';
import { callTools, findId, scriptedModel, throwScriptErrors } from '../executor/support/scripted-model.js';
import { countScanned, findLeaks, leakForms } from '../runner/support/secret-scan.js';
import { startAttempt, startPoliced, type AttemptHarness, type AttemptOptions, type PolicedStart } from '../support/attempt-harness.js';

/** Upper and lower case, a space, `+`, `/`, `&`, quotes and angle brackets: every encoding differs from the raw value. */
const CANARY = 'Zq7 Canary+Pw/42 "x"&<y>';
const INSTRUCTION = 'submit the token form with {token}';

let server: StaticServer;
let engine: Engine;
let received: string[];
const instances: EngineInstance[] = [];
const folders: string[] = [];

beforeAll(async () => {
  ({ server, received } = await servePagesRecording());
  engine = testWeb();
});
afterEach(async () => {
  throwScriptErrors();
  for (const instance of instances.splice(0)) await instance.close();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});
afterAll(async () => {
  await engine.dispose?.();
  await server.close();
});

/** A fresh page on the echo fixture, its Playwright page, and the console lines it prints. */
async function openEcho(knobs = ''): Promise<{ instance: EngineInstance; page: Page; console: string[]; police: PolicedStart['police'] }> {
  const { instance, police } = await startPoliced(engine, server.url);
  instances.push(instance);
  const page = (instance as unknown as { page: Page }).page;
  const console: string[] = [];
  page.on('console', (message) => console.push(message.text()));
  await instance.session.open(`${server.url}echo.html${knobs}`);
  return { instance, page, console, police };
}

/** The built-in agent, with every observation its step context handed it kept as JSON. */
function observed(executor: StepExecutor, observations: string[]): StepExecutor {
  return {
    ...executor,
    runStep: (ctx) =>
      executor.runStep({
        ...ctx,
        observe: async (options) => {
          const observation: Observation = await ctx.observe(options);
          observations.push(JSON.stringify(observation));
          return observation;
        },
      }),
  };
}

/** What the fixture hands out under `--debug`: transcripts, and a screenshot after every step. */
const EVERYTHING_KEPT: AttemptOptions = { context: 'A small test app.', debug: true, evidence: true };

/** A Unicode canary (NFC) that the `nfd` page hands back decomposed: every echo differs from the typed bytes. */
const UNICODE_CANARY = 'Zq7 Jürgen Gröne+café/Å "x"';

describe('a secret echoed by the page', () => {
  it('leaks into nothing the tool writes, and replay types the real value', () => recordAndReplay(CANARY, ''));

  it('leaks into nothing, in either normalization, when the page hands a Unicode secret back decomposed (NFD)', async () => {
    expect(UNICODE_CANARY.normalize('NFD')).not.toBe(UNICODE_CANARY);
    await recordAndReplay(UNICODE_CANARY, '#nfd');
  });
});

/** Record the token form with `canary` typed by name on the echo page (with `knobs`), replay it, scan everything. */
async function recordAndReplay(canary: string, knobs: string): Promise<void> {
  const shown = knobs.includes('nfd') ? canary.normalize('NFD') : canary;
  received.length = 0;
  const root = mkdtempSync(join(tmpdir(), 'e2e-secret-echo-'));
  folders.push(root);
  const cacheDir = join(root, 'cache');
  const outputs = join(root, 'outputs');
  mkdirSync(outputs);
  const store = new FileCacheStore(cacheDir, { hitsDirectory: join(root, 'hits') });
  const params = { token: secret('canary') };
  const secrets = { canary: canary };

  // The scanner finds each form it claims to, in any case (so an empty scan below means something).
  for (const form of leakForms(canary)) expect(findLeaks(canary, [], { probe: `…${form.toUpperCase()}…` })).not.toEqual([]);

  // Record: the scripted model reads the screen, types the secret by name, submits, concludes.
  const model = scriptedModel([
    ({ text }) => callTools(['type_secret', { target: findId(text, 'textbox', 'Password'), secret: 'canary' }]),
    ({ text }) => callTools(['tap', { target: findId(text, 'button', 'Submit') }]),
    ({ latest }) => {
      expect(latest).toContain('You typed <secret:canary>');
      return callTools(['complete_step', { status: 'passed', summary: 'The token form was submitted.' }]);
    },
  ]);
  const observations: string[] = [];
  const first = await openEcho(knobs);
  const recording = first.police(startAttempt({ instance: first.instance, engine, origin: server.origin }, { ...EVERYTHING_KEPT, cache: { store, waitForTargetMs: 2000 }, executor: observed(createAgent({ model }), observations), secrets }));
  const recorded = await recording.act(INSTRUCTION, params);
  expect(recorded.verdict).toEqual({ status: 'passed', summary: 'The token form was submitted.' });
  expect(recorded.actions).toContain('type <secret:canary> into textbox "Password"');
  // A passing check: the server answered the post.
  await expect.poll(() => first.page.locator('#saved').textContent()).toBe('Saved');
  recording.verify();

  // The page really echoed the canary into all four places (else the scan proves nothing).
  expect(received).toEqual([canary]);
  expect(await first.page.locator('#echo').textContent()).toBe(`You typed ${shown}`);
  expect(decodeURI(new URL(first.page.url()).search)).toBe(`?token=${shown}`);
  expect(await first.page.title()).toBe(`Token ${shown}`);
  expect(first.console).toContain(`submitted token ${shown}`);

  const recordReports = await recording.finish(true);
  expect(recordReports[0]?.outcome).toMatchObject({ mode: 'missed', reason: 'no-entry', write: 'saved' });
  expect(model.prompts.length).toBe(3);
  // The model saw the echoes, redacted: the title and the text carry the placeholder, never the value.
  expect(model.prompts[2]).toContain('#root document "Token <secret:canary>"');
  expect(model.prompts[2]).toContain('text="You typed <secret:canary>"');
  expect(observations.length).toBeGreaterThan(0);

  // Replay on a fresh page: no model call, and the field receives the real value.
  received.length = 0;
  const idle = scriptedModel([]);
  const second = await openEcho(knobs);
  const replaying = second.police(startAttempt({ instance: second.instance, engine, origin: server.origin }, { ...EVERYTHING_KEPT, cache: { store, waitForTargetMs: 2000 }, executor: createAgent({ model: idle }), secrets }));
  const replayed = await replaying.act(INSTRUCTION, params);
  expect(replayed.verdict.status).toBe('passed');
  expect(replayed.cache).toMatchObject({ mode: 'self-finalized' });
  expect(replayed.modelCalls).toBe(0);
  expect(idle.doGenerateCalls).toHaveLength(0);
  await expect.poll(() => second.page.locator('#saved').textContent()).toBe('Saved');
  expect(received).toEqual([canary]);
  expect(await second.page.locator('#password').inputValue()).toBe(canary);
  replaying.verify();
  const replayReports = await replaying.finish(true);

  // Everything handed out goes to disk beside the cache, then one scan over every byte.
  const extra: Record<string, string> = {
    'record outcome': JSON.stringify(recorded),
    'replay outcome': JSON.stringify(replayed),
    'record write reports': JSON.stringify(recordReports),
    'replay write reports': JSON.stringify(replayReports),
    'record report payload': recording.payload(),
    'replay report payload': replaying.payload(),
    'record report steps': recording.reportSteps(),
    'replay report steps': replaying.reportSteps(),
    'record step records': JSON.stringify(recording.runner.records),
    'replay step records': JSON.stringify(replaying.runner.records),
    'record ledger': JSON.stringify(recording.runner.ledger()),
    'model prompts': model.prompts.join('\n'),
    'model calls (raw prompts)': JSON.stringify(model.doGenerateCalls.map((call) => call.prompt)),
    observations: observations.join('\n'),
    'record logs': recording.handouts.logs.join('\n'),
    'replay logs': replaying.handouts.logs.join('\n'),
  };
  let artifactCount = 0;
  for (const [index, attempt] of [recording, replaying].entries()) {
    for (const [name, body] of Object.entries(attempt.handouts.texts)) writeFileSync(join(outputs, `${index}-${artifactCount++}-${name.replace(/\W+/g, '_')}.txt`), body);
    for (const [name, body] of Object.entries(attempt.handouts.binaries)) writeFileSync(join(outputs, `${index}-${artifactCount++}-${name.replace(/\W+/g, '_')}.bin`), body);
  }
  for (const [label, text] of Object.entries(extra)) writeFileSync(join(outputs, `${label.replace(/\W+/g, '_')}.txt`), text);

  expect(filesUnder(cacheDir).length).toBeGreaterThan(0);
  expect(Object.keys(recording.handouts.texts).some((name) => /transcript/i.test(name))).toBe(true);
  expect(recording.handouts.logs.length).toBeGreaterThan(0);
  expect(countScanned([root])).toBeGreaterThan(Object.keys(extra).length);
  expect(findLeaks(canary, [root], extra)).toEqual([]);
  expect(findLeaks(shown, [root], extra)).toEqual([]);
}
