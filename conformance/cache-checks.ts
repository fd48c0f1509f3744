/**
 * The checks that the cache works unchanged through the contract (DESIGN §6, §8): a step on
 * the engine is recorded through the real step runner and attempt cache, replays model-free on
 * a fresh attempt (no executor at all), and does not replay as passed on the broken app, where
 * every recorded control is found but the recorded outcome never appears (a regression).
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FileCacheStore } from '../cache-format/file-cache-store.js';
import type { EngineInstance } from '../contract/engine.js';
import type { StepExecutor } from '../contract/step-contract.js';
import { wireAttempt, type WiredAttempt } from '../runner/wire-attempt.js';
import { SecretVault } from '../secrets/vault.js';
import type { AgentEntry } from '../step/step-runner.js';
import type { ConformanceCheck } from './engine-checks.js';
import { expectThat, findControl, openAttempt, startConfigOf } from './engine-session.js';
import type { ConformanceApp, ConformanceSubject } from './subject.js';

/** The scenario's step, as a test writes it. */
const INSTRUCTION = 'add the item "Conformance item"';
const ITEM = 'Conformance item';

/** A scripted executor (no model): finds the field on the screen, types the item and submits it. */
function typist(subject: ConformanceSubject): StepExecutor {
  return {
    name: 'conformance-typist',
    version: '1',
    async runStep(ctx) {
      const screen = await ctx.observe({ tree: true });
      const field = screen.tree === undefined ? undefined : findControl({ root: screen.tree, url: '', title: '', nodeCount: 0 }, subject.field);
      if (field === undefined) return { status: 'failed', summary: `No ${subject.field.role} "${subject.field.name}" on the screen.` };
      await ctx.actions.type({ id: field.id }, ITEM, { replace: true });
      await ctx.actions.press({ id: field.id }, subject.submit ?? 'Enter');
      return { status: 'passed', summary: `Added ${ITEM}.` };
    },
  };
}

/** One attempt on `app` with the attempt cache over `store`, as the runner host wires it. */
async function cachedAttempt(subject: ConformanceSubject, app: ConformanceApp, store: FileCacheStore, mode: 'read-write' | 'read-only', agent: AgentEntry): Promise<{ wired: WiredAttempt; instance: EngineInstance }> {
  const instance = await openAttempt(subject, app);
  const engine = subject.engine;
  const located = engine.location === 'url';
  const identity = located ? new URL(String((app.app as { url?: unknown }).url)).origin : identityOf(subject, app);
  const vault = new SecretVault({});
  const wired = wireAttempt({
    cache: {
      store,
      mode,
      strict: mode === 'read-only',
      projectId: subject.name,
      appIdentity: identity,
      engine: { name: engine.name, contractVersion: engine.contractVersion },
      located,
      toolVersion: 'conformance',
      secrets: {},
      redact: (text) => text,
      hitsEnabled: false,
      replay: { waitForTargetMs: subject.replayWaitMs ?? 3000, pollIntervalMs: 100 },
    },
    engine: instance,
    target: { name: subject.name, platform: engine.platform, verbs: engine.verbs, tapModifiers: engine.tapModifiers === true, location: engine.location },
    secrets: vault,
    origins: located && app.open !== undefined ? [new URL(app.open).origin] : [],
    projectRoot: process.cwd(),
    agents: { default: agent },
    attempt: { testId: `conformance › ${subject.name}`, retry: 0, titlePath: ['conformance', subject.name] },
    evidence: false,
  });
  return { wired, instance };
}

/** The app's cache identity, as the config would resolve it for an engine without a location. */
function identityOf(subject: ConformanceSubject, app: ConformanceApp): string {
  const check = subject.engine.host?.app;
  if (check !== undefined) {
    const checked = check.call(subject.engine.host, app.app);
    if (checked.ok) return checked.app.identity;
  }
  startConfigOf(subject, app);
  const own = (app.app as { identity?: unknown } | undefined)?.identity;
  return typeof own === 'string' && own !== '' ? own : subject.engine.name;
}

/** Record the scenario's step, verified, into `store`; the entry's version. */
async function record(subject: ConformanceSubject, store: FileCacheStore): Promise<number> {
  const { wired, instance } = await cachedAttempt(subject, subject.app, store, 'read-write', { executor: typist(subject), context: 'Conformance.', limits: {} });
  try {
    const outcome = await wired.runner.runStep('act', INSTRUCTION);
    expectThat(outcome.verdict.status === 'passed', `the scripted step passes on the engine (got ${outcome.verdict.status}: ${outcome.verdict.summary}).`);
    // A passed check of the screen follows, as an `expect` in a test would.
    wired.runner.recordVerification('expect', 'toBeVisible');
    wired.runner.close();
    const reports = await wired.finish({ passed: true });
    const written = reports[0]?.outcome;
    expectThat(written?.write === 'saved', `the verified step is saved as an entry (write: ${String(written?.write)}; ${written?.writeDetail ?? written?.detail ?? 'no detail'}).`);
  } finally {
    await instance.close().catch(() => undefined);
  }
  const [ref] = await store.list();
  expectThat(ref !== undefined, 'the store holds the recorded entry.');
  const read = await store.read(ref.key);
  expectThat(read.kind === 'hit', `the recorded entry reads back (got ${read.kind}).`);
  return read.entry.version;
}

/** Replay the recorded step on `app` with no executor and no model: the outcome. */
async function replay(subject: ConformanceSubject, app: ConformanceApp, store: FileCacheStore) {
  const { wired, instance } = await cachedAttempt(subject, app, store, 'read-only', { context: 'Conformance.', limits: {} });
  try {
    const outcome = await wired.runner.runStep('act', INSTRUCTION);
    wired.runner.close();
    return outcome;
  } finally {
    await instance.close().catch(() => undefined);
  }
}

/** A fresh cache folder for one check, removed after it. */
async function withStore(work: (store: FileCacheStore) => Promise<void>): Promise<void> {
  const folder = await mkdtemp(join(tmpdir(), 'e2e-conformance-'));
  try {
    await work(new FileCacheStore(folder));
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}

/** The checks of the cache through the contract for `subject`. */
export function cacheChecks(subject: ConformanceSubject): ConformanceCheck[] {
  return [
    {
      name: 'records a verified step through the runner and replays it with no executor and no model',
      run: () =>
        withStore(async (store) => {
          const version = await record(subject, store);
          expectThat(version === (subject.engine.location === 'url' ? 1 : 2), `the entry is version ${subject.engine.location === 'url' ? '1 (with its routes)' : '2 (no location)'} (got ${version}).`);
          const outcome = await replay(subject, subject.app, store);
          expectThat(outcome.verdict.status === 'passed' && outcome.cache?.mode === 'self-finalized', `the step replays model-free (got ${outcome.verdict.status}, cache ${outcome.cache?.mode ?? 'none'}: ${outcome.cache?.detail ?? outcome.verdict.summary}).`);
          expectThat(outcome.modelCalls === 0, `the replay made no model call (got ${outcome.modelCalls}).`);
        }),
    },
    {
      name: 'does not pass the replay on the broken app: the recorded outcome never appears, a regression',
      run: () =>
        withStore(async (store) => {
          await record(subject, store);
          const outcome = await replay(subject, subject.broken, store);
          expectThat(outcome.cache?.mode !== 'self-finalized', `the cache does not pass the step on the broken app (it self-finalized: ${outcome.verdict.summary}).`);
          expectThat(outcome.verdict.status !== 'passed', `the step does not pass on the broken app (got ${outcome.verdict.status}).`);
          expectThat(outcome.verdict.errorCode === 'ASSERTION_FAILED', `the replay found every recorded control, so it reads as a regression, ASSERTION_FAILED (got ${String(outcome.verdict.errorCode)}: ${outcome.cache?.detail ?? outcome.verdict.summary}).`);
        }),
    },
  ];
}
