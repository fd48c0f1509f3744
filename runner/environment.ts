/**
 * The runner entry's window on the process (STYLE 9): the only runner module that reads
 * `process.env` or writes to the console. Everything else receives these values as
 * arguments. The CLI passes its modes to Playwright Test through these variables.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname } from 'node:path';
import type { Logger } from '../contract/logger.js';
import { createSecretRedactor, type SecretRedactor } from '../secrets/redactor.js';
import { environmentVariableFor } from '../secrets/vault.js';
import type { CacheMode } from '../contract/cache-outcome.js';
import { visibleLines, visibleText } from '../semantics/visible-text.js';
import { FAILURE_SNAPSHOT_SWITCH } from './playwright-internals.js';

/** Environment variables the CLI sets for a run. */
export const ENVIRONMENT = {
  /** `read-write` | `read-only` | `off`: overrides the configured cache mode. */
  cacheMode: 'E2E_CACHE_MODE',
  /** `1`: a step whose entry no longer replays fails `REPLAY_STALE` (`--strict-cache`, `e2e replay`). */
  cacheStrict: 'E2E_CACHE_STRICT',
  /** `1`: model-free (`e2e replay`): no agent model, judge or executor runs; only the cache finishes steps. Alone (as with plain `npx playwright test`) it also makes the cache read-only and strict, as `e2e replay` does. */
  replay: 'E2E_REPLAY',
  /** Absolute folder where a read-only run writes new and healed recordings (`--propose <dir>`). */
  proposeDir: 'E2E_PROPOSE_DIR',
  /** `1`: attach transcripts and print debug lines. */
  debug: 'E2E_DEBUG',
  /** Path where a config failure is written as JSON `{ code, message }` for the CLI. */
  failureFile: 'E2E_FAILURE_FILE',
  /** Path of the report file, overriding `.e2e/report.json`. */
  reportFile: 'E2E_REPORT_FILE',
  /** Path where the config probe reporter writes the loaded config's e2e folders (for the cache commands). */
  configProbeFile: 'E2E_CONFIG_PROBE_FILE',
  /** File descriptor of a pipe from the CLI: when it closes, the CLI is gone and the run stops. */
  parentPipe: 'E2E_PARENT_PIPE_FD',
  /** `1`: the run's main process found no ffmpeg for Playwright's video, so workers resolve the config with video off. */
  videoUnavailable: 'E2E_VIDEO_UNAVAILABLE',
  /** Path of the audit plan (`e2e cache audit`): each mutant becomes a project of the run. */
  auditPlan: 'E2E_AUDIT_PLAN',
} as const;

/** The process environment as the config reads it: variable name → value. */
export type EnvironmentVariables = Readonly<Record<string, string | undefined>>;

/** How long the run may take to stop cleanly after the CLI died before it is killed. */
const ORPHAN_GRACE_MS = 10_000;

/**
 * In Playwright's main process started by the CLI: stop the run (its whole process group)
 * when the CLI dies, even by SIGKILL, so no orphaned run keeps writing entries nobody reads.
 * First an interrupt (the run ends cleanly, the cache unchanged), then a kill after a grace.
 */
export function stopWithParent(): void {
  const value = process.env[ENVIRONMENT.parentPipe];
  // Workers are forked later with this environment, and their fd 3 is Playwright's IPC channel.
  delete process.env[ENVIRONMENT.parentPipe];
  const fd = value === undefined ? Number.NaN : Number(value);
  if (!Number.isInteger(fd) || fd < 3 || process.send !== undefined) return;
  let socket: Socket;
  try {
    socket = new Socket({ fd, readable: true, writable: false });
  } catch {
    return;
  }
  const orphaned = (): void => {
    try {
      process.kill(-process.pid, 'SIGINT');
    } catch {
      process.kill(process.pid, 'SIGINT');
    }
    setTimeout(() => {
      try {
        process.kill(-process.pid, 'SIGKILL');
      } catch {
        process.kill(process.pid, 'SIGKILL');
      }
    }, ORPHAN_GRACE_MS).unref();
  };
  socket.once('end', orphaned);
  socket.once('error', orphaned);
  socket.resume();
  socket.unref();
}

export type { CacheMode };

/** What a run takes from the environment. */
export interface RunEnvironment {
  /** The cache mode the CLI asked for, if any. */
  cacheMode: CacheMode | undefined;
  /** True when the CLI asked for strict cache use. */
  cacheStrict: boolean;
  /** True for a model-free run (`e2e replay`). */
  modelFree: boolean;
  /** The proposal folder of `--propose <dir>`, if any. */
  proposeDir: string | undefined;
  debug: boolean;
  /** True when `CI` is set (the default cache mode becomes read-only). */
  ci: boolean;
  reportFile: string | undefined;
  /** The audit plan's path (`e2e cache audit`), if any. */
  auditPlan: string | undefined;
  /** Variables the browser discovery reads (`E2E_CHROMIUM_PATH`, `PATH`, and where Playwright keeps its browsers and ffmpeg). */
  browser: Readonly<Record<string, string | undefined>>;
  /** True when the run's main process found that Playwright cannot record video here. */
  videoUnavailable: boolean;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** What a run takes from `variables` (pure: the caller passes `process.env` or a test's own table). */
export function runEnvironmentOf(variables: EnvironmentVariables): RunEnvironment {
  const mode = variables[ENVIRONMENT.cacheMode];
  const ci = variables['CI'];
  const modelFree = variables[ENVIRONMENT.replay] === '1';
  return {
    // Model-free replay writes nothing and never asks a model to heal, whoever started the run.
    cacheMode: mode === 'read-write' || mode === 'read-only' || mode === 'off' ? mode : modelFree ? 'read-only' : undefined,
    cacheStrict: variables[ENVIRONMENT.cacheStrict] === '1' || modelFree,
    modelFree,
    proposeDir: nonEmpty(variables[ENVIRONMENT.proposeDir]),
    debug: variables[ENVIRONMENT.debug] === '1',
    ci: ci !== undefined && ci !== '' && ci !== 'false',
    reportFile: variables[ENVIRONMENT.reportFile],
    auditPlan: nonEmpty(variables[ENVIRONMENT.auditPlan]),
    browser: {
      E2E_CHROMIUM_PATH: variables['E2E_CHROMIUM_PATH'],
      PATH: variables['PATH'],
      PLAYWRIGHT_BROWSERS_PATH: variables['PLAYWRIGHT_BROWSERS_PATH'],
      HOME: variables['HOME'],
      XDG_CACHE_HOME: variables['XDG_CACHE_HOME'],
      LOCALAPPDATA: variables['LOCALAPPDATA'],
    },
    videoUnavailable: variables[ENVIRONMENT.videoUnavailable] === '1',
  };
}

/** Read this process's run environment. */
export function readRunEnvironment(): RunEnvironment {
  return runEnvironmentOf(process.env);
}

/** This process's environment variables, for the runner entry and `defineConfig`. */
export function processVariables(): EnvironmentVariables {
  return process.env;
}

/** Where the config probe reporter writes, when the CLI asked it to. */
export function readConfigProbeFile(): string | undefined {
  return nonEmpty(process.env[ENVIRONMENT.configProbeFile]);
}

/**
 * The value of secret `name` from the environment: `E2E_SECRET_<NAME>` (camelCase split
 * with `_`, e.g. `adminPassword` → `E2E_SECRET_ADMIN_PASSWORD`), or the plain upper-cased
 * name (`E2E_SECRET_ADMINPASSWORD`).
 */
export function secretFromEnvironment(name: string, variables: EnvironmentVariables = process.env): string | undefined {
  const primary = variables[environmentVariableFor(name)];
  if (primary !== undefined && primary !== '') return primary;
  const plain = variables[`E2E_SECRET_${name.replace(/[.-]/g, '_').toUpperCase()}`];
  return plain === undefined || plain === '' ? undefined : plain;
}

/** Every `E2E_SECRET_*` value present, for redaction in the main process. */
export function secretValuesFromEnvironment(variables: EnvironmentVariables = process.env): Record<string, string> {
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(variables)) {
    if (key.startsWith('E2E_SECRET_') && value !== undefined && value !== '') values[key.slice('E2E_SECRET_'.length)] = value;
  }
  return values;
}

/**
 * Hand a config failure to the CLI (when it asked for one), so the run exits with the code's
 * class. The one side effect left at the config boundary: a config that fails to load runs
 * nothing else of e2e (no reporter, no fixture) that could report it.
 */
export function reportConfigFailure(failure: { code: string; message: string }): void {
  const path = process.env[ENVIRONMENT.failureFile];
  if (path === undefined || path === '') return;
  try {
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, JSON.stringify(failure));
  } catch {
    // The CLI falls back to the child's exit status.
  }
}

/** Tell the workers (forked after this, with this environment) that Playwright cannot record video here. */
export function markVideoUnavailable(): void {
  process.env[ENVIRONMENT.videoUnavailable] = '1';
}

const originalNoCopyPrompt = process.env[FAILURE_SNAPSHOT_SWITCH];

/**
 * Withhold Playwright's failure page snapshot (`error-context.md`) for this attempt: after a
 * secret fill the page may show the value, and no evidence is kept from then on. Playwright
 * reads the switch (`playwright-internals.ts`, probed there) in the worker when the context closes.
 */
export function withholdFailureSnapshot(withhold: boolean): void {
  if (withhold) process.env[FAILURE_SNAPSHOT_SWITCH] = '1';
  else if (originalNoCopyPrompt === undefined) delete process.env[FAILURE_SNAPSHOT_SWITCH];
  else process.env[FAILURE_SNAPSHOT_SWITCH] = originalNoCopyPrompt;
}

const outputSecrets = new Map<string, string>();
let outputRedactor: SecretRedactor | undefined;

/**
 * Redact `secrets` (name → value) from everything this process writes to stdout and stderr,
 * from now on. In a Playwright worker this wraps Playwright's own capture of the worker's
 * output, so `console.log` in a test, logger lines and the worker's trace of its output arrive
 * redacted; in the main process it covers every terminal reporter and Playwright's own
 * messages. A value split across two writes is not recognised; messages are written whole.
 */
export function redactProcessOutput(secrets: Iterable<readonly [string, string | undefined]>): void {
  let added = false;
  for (const [name, value] of secrets) {
    if (value === undefined || value === '' || outputSecrets.get(name) === value) continue;
    outputSecrets.set(name, value);
    added = true;
  }
  if (!added) return;
  const first = outputRedactor === undefined;
  outputRedactor = createSecretRedactor(outputSecrets);
  if (!first) return;
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream) as (chunk: unknown, ...rest: unknown[]) => boolean;
    stream.write = ((chunk: unknown, ...rest: unknown[]) => write(redactChunk(chunk), ...rest)) as typeof stream.write;
  }
}

function redactChunk(chunk: unknown): unknown {
  const redactor = outputRedactor;
  if (redactor === undefined) return chunk;
  if (typeof chunk === 'string') return redactor.redact(chunk);
  if (chunk instanceof Uint8Array) {
    const text = Buffer.from(chunk).toString('utf8');
    const redacted = redactor.redact(text);
    return redacted === text ? chunk : Buffer.from(redacted, 'utf8');
  }
  return chunk;
}

/** Write lines to standard output, or standard error (the reporter's summary). */
export function printLines(lines: readonly string[], stream: 'stdout' | 'stderr' = 'stdout'): void {
  process[stream].write(lines.map((line) => `${visibleText(line)}\n`).join(''));
}

/** A logger writing to standard error; debug lines only under `--debug`. */
export function consoleLogger(debug: boolean): Logger {
  return {
    debug: (message) => {
      if (debug) process.stderr.write(`[e2e] ${visibleLines(message)}\n`);
    },
    warn: (message) => process.stderr.write(`[e2e] warning: ${visibleLines(message)}\n`),
  };
}
