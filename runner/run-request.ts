/**
 * The run request: everything the CLI asks of one Playwright run (the cache mode and
 * strictness, the proposal folder, whether a model may run, `--debug`, the report file, the
 * audit's mutants, where the config probe goes, the pipe that tells the run its CLI died), as
 * one typed, versioned JSON file. `launch/` writes it and names it in {@link RUN_REQUEST_VARIABLE};
 * the runner entry reads it once per process (`environment.ts`, `runRequest`) and validates
 * it here. Filters and Playwright's own options are not in it: they go to Playwright as its
 * arguments, and Playwright does the selecting.
 *
 * Plain `npx playwright test` has no request: {@link requestFromVariables} turns the two
 * documented variables into the same request (`E2E_REPLAY=1` is what `e2e replay` asks for;
 * `E2E_CACHE_MODE` sets the mode), so there is one reader of the modes either way.
 */
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import type { CacheMode } from '../contract/cache-outcome.js';
import { E2EError } from '../errors/index.js';
import { plannedMutantSchema, type PlannedMutant } from './audit-mutants.js';

/** The version of the request this e2e writes and reads. */
export const RUN_REQUEST_VERSION = 1;

/** The variable naming the request file (absolute path), set by the CLI for the run it starts. */
export const RUN_REQUEST_VARIABLE = 'E2E_RUN_REQUEST';

/** Plain `npx playwright test`: `1` asks for what `e2e replay` asks (read-only, strict, model-free). */
export const REPLAY_VARIABLE = 'E2E_REPLAY';

/** Plain `npx playwright test`: `read-write`, `read-only` or `off` overrides the configured cache mode. */
export const CACHE_MODE_VARIABLE = 'E2E_CACHE_MODE';

/** Largest request file read (an audit of thousands of mutants stays far below it). */
export const MAX_RUN_REQUEST_BYTES = 64 * 1024 * 1024;

const absolutePath = z.string().min(1).refine(isAbsolute, 'must be an absolute path');

const requestSchema = z.strictObject({
  version: z.literal(RUN_REQUEST_VERSION),
  cache: z.strictObject({
    /** Overrides `cache.mode` (`e2e record`: read-write, `e2e replay` and `--propose`: read-only, `--no-cache`: off). */
    mode: z.enum(['read-write', 'read-only', 'off']).optional(),
    /** A step whose entry no longer replays fails `REPLAY_STALE` (`--strict-cache`, `e2e replay`), on top of `cache.strict`. */
    strict: z.boolean(),
    /** `--propose <dir>`: new and healed recordings go here, the cache stays read-only. */
    proposals: absolutePath.optional(),
  }),
  /** `e2e replay`: no model, judge or custom executor runs; only the cache finishes steps. */
  modelFree: z.boolean(),
  /** `--debug`: transcripts, debug lines, the per-step table. */
  debug: z.boolean(),
  /** Where e2e's reporter writes the report (default `.e2e/report.json` beside the config). */
  report: absolutePath.optional(),
  /** Where the config probe reporter writes the loaded config's e2e folders (`cache` commands, `e2e record`). */
  configProbe: absolutePath.optional(),
  /** A pipe from the CLI (a file descriptor of Playwright's main process): when it closes, the CLI is gone and the run stops. */
  parentPipe: z.number().int().min(3).optional(),
  /** `e2e cache audit`: the mutants to replay, a test or a copy of it per mutant, one project per target (`audit-mutants.ts`). */
  mutants: z.array(plannedMutantSchema).optional(),
});

/** What the CLI asks of one run. */
export type RunRequest = Omit<z.infer<typeof requestSchema>, 'cache' | 'mutants'> & {
  cache: { mode?: CacheMode | undefined; strict: boolean; proposals?: string | undefined };
  mutants?: PlannedMutant[] | undefined;
};

/** The request of a run nobody asked anything of: the configured mode, models allowed. */
export const PLAIN_RUN_REQUEST: RunRequest = { version: RUN_REQUEST_VERSION, cache: { strict: false }, modelFree: false, debug: false };

/** A request file, read: valid, written by a newer e2e, or not one at all (with why, never its content). */
export type RunRequestRead = { kind: 'request'; request: RunRequest } | { kind: 'unsupported-version'; version: number } | { kind: 'invalid'; reason: string };

/** Parse and validate a request file's text. */
export function parseRunRequest(text: string): RunRequestRead {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return { kind: 'invalid', reason: 'it is not JSON' };
  }
  const version = typeof data === 'object' && data !== null ? (data as { version?: unknown }).version : undefined;
  if (typeof version === 'number' && Number.isInteger(version) && version > RUN_REQUEST_VERSION) return { kind: 'unsupported-version', version };
  const parsed = requestSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? '' : `${issue.path.join('.')}: `;
    return { kind: 'invalid', reason: `${where}${issue?.message ?? 'invalid'}` };
  }
  return { kind: 'request', request: parsed.data as RunRequest };
}

/**
 * The error of a request that cannot be used, `INVALID_CONFIG` (exit 2): a newer e2e wrote it
 * (the CLI and the config load different e2e installs), or it is damaged.
 */
export function runRequestError(path: string, read: Exclude<RunRequestRead, { kind: 'request' }>): E2EError {
  if (read.kind === 'unsupported-version') {
    return new E2EError(
      'INVALID_CONFIG',
      `The run request ${path} has version ${read.version}, newer than this e2e reads (${RUN_REQUEST_VERSION}): the e2e that started the run is newer than the one the config imports. Install one e2e in the project and run it with \`npx e2e\`.`,
    );
  }
  return new E2EError('INVALID_CONFIG', `The run request ${path} is not one e2e wrote (${read.reason}); start the run with \`e2e run\`, \`e2e record\` or \`e2e replay\`, or unset ${RUN_REQUEST_VARIABLE}.`);
}

/**
 * The request of plain `npx playwright test` (no request file): `E2E_REPLAY=1` is `e2e replay`'s
 * request (read-only, strict, model-free) and `E2E_CACHE_MODE` sets the mode (an explicit mode
 * wins over the replay's read-only: `off` neither replays nor records). A value that is none of
 * the modes is `INVALID_CONFIG`, naming them.
 */
export function requestFromVariables(variables: Readonly<Record<string, string | undefined>>): RunRequest {
  const modelFree = variables[REPLAY_VARIABLE] === '1';
  const named = variables[CACHE_MODE_VARIABLE];
  let mode: CacheMode | undefined;
  if (named === 'read-write' || named === 'read-only' || named === 'off') mode = named;
  else if (named !== undefined && named !== '') {
    throw new E2EError('INVALID_CONFIG', `${CACHE_MODE_VARIABLE}=${named} is not a cache mode; use read-write, read-only or off (or leave it unset for the configured mode).`);
  }
  // Model-free replay writes nothing and never asks a model to heal, whoever started the run.
  if (mode === undefined && modelFree) mode = 'read-only';
  return { version: RUN_REQUEST_VERSION, cache: { ...(mode === undefined ? {} : { mode }), strict: modelFree }, modelFree, debug: false };
}
