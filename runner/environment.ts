/**
 * The runner entry's window on the process (STYLE 9): the only runner module that reads
 * `process.env` or writes to the console. Everything else receives these values as
 * arguments. What the CLI asks of a run comes in one request file (`run-request.ts`), read
 * here once per process; plain `npx playwright test` has none, and its two documented
 * variables become the same request.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { Socket } from 'node:net';
import { dirname, join } from 'node:path';
import type { Logger } from '../contract/logger.js';
import { E2EError } from '../errors/index.js';
import { createSecretRedactor, type SecretRedactor } from '../secrets/redactor.js';
import { environmentVariableFor } from '../secrets/vault.js';
import type { CacheMode } from '../contract/cache-outcome.js';
import { visibleLines, visibleText } from '../semantics/visible-text.js';
import { FAILURE_SNAPSHOT_SWITCH } from './playwright-internals.js';
import { MAX_RUN_REQUEST_BYTES, parseRunRequest, requestFromVariables, runRequestError, RUN_REQUEST_VARIABLE, type RunRequest } from './run-request.js';

/** Environment variables of a run besides the request (process plumbing, not what the CLI asks). */
export const ENVIRONMENT = {
  /** The request file (absolute path) the CLI wrote for this run (`run-request.ts`). */
  runRequest: RUN_REQUEST_VARIABLE,
  /** `1`: the run's main process found no ffmpeg for Playwright's video, so workers resolve the config with video off. */
  videoUnavailable: 'E2E_VIDEO_UNAVAILABLE',
} as const;

/** Name of the file, beside the request file, where a config failure is written as JSON `{ code, message }` for the CLI. */
export const FAILURE_FILE_NAME = 'failure.json';

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
  let fd: number | undefined;
  try {
    fd = runRequest().parentPipe;
  } catch {
    // An unusable request already failed the config load, which reports it.
    return;
  }
  // Workers read the same request, and their fd 3 is Playwright's IPC channel.
  if (fd === undefined || process.send !== undefined) return;
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

export type { CacheMode, RunRequest };

/** What a run takes from the environment itself (what the CLI asks is the {@link RunRequest}). */
export interface RunEnvironment {
  /** True when `CI` is set (the default cache mode becomes read-only). */
  ci: boolean;
  /** Variables the browser discovery reads (`E2E_CHROMIUM_PATH`, `PATH`, and where Playwright keeps its browsers and ffmpeg). */
  browser: Readonly<Record<string, string | undefined>>;
  /** True when the run's main process found that Playwright cannot record video here. */
  videoUnavailable: boolean;
}

/** What a run takes from `variables` (pure: the caller passes `process.env` or a test's own table). */
export function runEnvironmentOf(variables: EnvironmentVariables): RunEnvironment {
  const ci = variables['CI'];
  return {
    ci: ci !== undefined && ci !== '' && ci !== 'false',
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

/** This process's environment variables, as the host hands them to an engine that starts a program. */
export function hostEnvironment(): EnvironmentVariables {
  return process.env;
}

/** Read this process's run environment. */
export function readRunEnvironment(): RunEnvironment {
  return runEnvironmentOf(process.env);
}

/** This process's request, read once: `{ request }`, or the error every reader of it throws. */
let processRequest: { request: RunRequest } | { error: E2EError } | undefined;

/** The request of a file path: read (size-capped), parsed and validated; an unusable one throws `INVALID_CONFIG`. */
function readRequestFile(path: string): RunRequest {
  let text: string;
  try {
    if (statSync(path).size > MAX_RUN_REQUEST_BYTES) throw runRequestError(path, { kind: 'invalid', reason: `it is larger than ${MAX_RUN_REQUEST_BYTES} bytes` });
    text = readFileSync(path, 'utf8');
  } catch (error) {
    if (error instanceof E2EError) throw error;
    throw new E2EError('INVALID_CONFIG', `The run request ${path} (${RUN_REQUEST_VARIABLE}) cannot be read; start the run with \`e2e run\`, \`e2e record\` or \`e2e replay\`, or unset ${RUN_REQUEST_VARIABLE}.`);
  }
  const read = parseRunRequest(text);
  if (read.kind !== 'request') throw runRequestError(path, read);
  return read.request;
}

/**
 * What the CLI asked of this run: the request file named by `E2E_RUN_REQUEST`, read and
 * validated once per process; without one (plain `npx playwright test`) the request the
 * documented variables make. An unusable request throws `INVALID_CONFIG`, every time it is asked for.
 */
export function runRequest(): RunRequest {
  if (processRequest === undefined) {
    try {
      const path = process.env[RUN_REQUEST_VARIABLE];
      processRequest = { request: path === undefined || path === '' ? requestFromVariables(process.env) : readRequestFile(path) };
    } catch (error) {
      if (!(error instanceof E2EError)) throw error;
      processRequest = { error };
    }
  }
  if ('error' in processRequest) throw processRequest.error;
  return processRequest.request;
}

/** This process's environment variables, for the runner entry and `defineConfig`. */
export function processVariables(): EnvironmentVariables {
  return process.env;
}

/** Where the config probe reporter writes, when the CLI asked it to. */
export function readConfigProbeFile(): string | undefined {
  return runRequest().configProbe;
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
  // Beside the request file, so a request that does not read can still be reported.
  const request = process.env[RUN_REQUEST_VARIABLE];
  if (request === undefined || request === '') return;
  const path = join(dirname(request), FAILURE_FILE_NAME);
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
