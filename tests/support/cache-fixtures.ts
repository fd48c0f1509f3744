/**
 * Builders for the cache-command tests: real entries through the recorder's `buildActEntry`
 * and the real key function, written through `FileCacheStore`; raw files for the broken
 * cases (old schema, corrupt bytes, malformed refs, temp files); real git repositories.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import {
  blobPath,
  computeKey,
  contentAddress,
  encodeCanonical,
  encodeEntry,
  FileCacheStore,
  refPath,
  REPLAY_POLICY_VERSION,
  type ActEntry,
  type Entry,
  type JudgmentEntry,
  type KeyParts,
  type RecordedAction,
  type StateControl,
  type TargetDescription,
} from '../../cache-format/index.js';
import { buildActEntry } from '../../recorder/record-step.js';

/** A fresh temp folder. */
export async function temporaryFolder(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `e2e-${prefix}-`));
}

/** A control description for a recorded action. */
export function control(role: string, name: string, extra: Partial<TargetDescription> = {}): TargetDescription {
  return { role, name, twinIndex: 0, twinCount: 1, ...extra };
}

/** An end-check control. */
export function stateControl(role: string, name: string, states: StateControl['states'] = []): StateControl {
  return { role, name, states };
}

/** What an act entry is built from. */
export interface ActEntrySpec {
  testId: string;
  instruction: string;
  actions: RecordedAction[];
  target?: string;
  occurrence?: number;
  params?: Record<string, string>;
  contextDigest?: string;
  appeared?: StateControl[];
  gone?: StateControl[];
  origins?: string[];
  path?: string;
  summary?: string;
  recordedAt?: string;
}

/** The shop app's origin in fixtures. */
export const SHOP_ORIGIN = 'http://127.0.0.1:4173';

/** Key parts of a step. */
export function keyPartsOf(spec: Pick<ActEntrySpec, 'testId' | 'instruction' | 'target' | 'occurrence' | 'params' | 'contextDigest'>): KeyParts {
  const target = spec.target ?? 'web';
  return {
    projectId: target,
    testId: spec.testId,
    target,
    engine: 'web',
    engineContract: 1,
    kind: 'act',
    instruction: spec.instruction,
    params: spec.params ?? {},
    occurrence: spec.occurrence ?? 0,
    appIdentity: SHOP_ORIGIN,
    agent: 'default',
    contextDigest: spec.contextDigest ?? 'c0ffee00c0ffee00',
    replayPolicy: REPLAY_POLICY_VERSION,
  };
}

/** A real act entry, validated by the recorder's entry builder. */
export async function actEntry(spec: ActEntrySpec): Promise<ActEntry> {
  const keyParts = keyPartsOf(spec);
  const route = { origin: SHOP_ORIGIN, path: spec.path ?? '/', query: '' };
  const built = buildActEntry(
    { actions: spec.actions, startRoute: route, endRoute: route, origins: spec.origins ?? [SHOP_ORIGIN], appeared: spec.appeared ?? [], gone: spec.gone ?? [] },
    {
      key: await computeKey(keyParts),
      keyParts,
      summary: spec.summary ?? `Did: ${spec.instruction}.`,
      provenance: { verifiedBy: 'expect', executor: 'e2e/agent', toolVersion: '0.1.0', recordedAt: spec.recordedAt ?? '2025-03-04T05:06:07.000Z' },
    },
  );
  if (built.kind !== 'entry') throw new Error(`fixture entry does not build: ${built.reason}`);
  return built.entry;
}

/** An assert entry keyed after the acts `preceding` (their keys, in order), as the judgment cache keys it. */
export async function assertEntry(testId: string, preceding: readonly string[], instruction = 'two todos are open'): Promise<JudgmentEntry> {
  const keyParts: KeyParts = { ...keyPartsOf({ testId, instruction }), kind: 'assert', preceding: [...preceding] };
  return {
    version: 1,
    kind: 'assert',
    key: await computeKey(keyParts),
    keyParts,
    route: { origin: SHOP_ORIGIN, path: '/', query: '' },
    evidence: [{ control: stateControl('listitem', 'Buy milk'), expect: 'present' }],
    summary: 'Two todos are open.',
    provenance: { verifiedBy: 'assert', executor: 'e2e/agent', toolVersion: '0.1.0', recordedAt: '2025-03-04T05:06:07.000Z' },
  };
}

/** Writes `entries` into the cache folder `directory` through the file store (replacing what the keys name). */
export async function writeEntries(directory: string, entries: readonly Entry[]): Promise<void> {
  const store = new FileCacheStore(directory);
  for (const entry of entries) await store.write(entry, { overwrite: true });
}

/** Writes raw bytes as a blob named by their content, and a ref `key` naming it. Returns the blob name. */
export async function writeRawEntry(directory: string, key: string, bytes: Uint8Array): Promise<string> {
  const blob = await contentAddress(bytes);
  writeFile(blobPath(directory, blob), bytes);
  writeFile(refPath(directory, key), `${blob}\n`);
  return blob;
}

/** The bytes of `entry` with its schema version replaced (an old or newer e2e's entry). */
export function bytesWithVersion(entry: Entry, version: number): Uint8Array {
  return encodeCanonical({ ...entry, version });
}

/** Writes `content` at `path`, creating folders. */
export function writeFile(path: string, content: string | Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, content);
}

/** Sets the modification time of `path` to `ageMs` before `now`. */
export function age(path: string, ageMs: number, now: Date = new Date()): void {
  const time = new Date(now.getTime() - ageMs);
  utimesSync(path, time, time);
}

/** The blob name `entry` is stored as. */
export async function blobOf(entry: Entry): Promise<string> {
  return (await encodeEntry(entry)).blob;
}

/** Runs git in `cwd` with a fixed identity; returns stdout. */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'user.name=e2e tests', '-c', 'user.email=e2e@example.invalid', '-c', 'commit.gpgsign=false', '-c', 'init.defaultBranch=main', ...args], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null' },
  });
}

/** Stages everything in `cwd` and commits it. */
export function commitAll(cwd: string, message: string): void {
  git(cwd, 'add', '-A');
  git(cwd, 'commit', '-q', '--allow-empty', '-m', message);
}
