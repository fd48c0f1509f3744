/**
 * The run request (what the CLI asks of one run): it reads back what launch/ writes, a newer
 * version is refused by name, damaged input gets a clear reason with INVALID_CONFIG, and plain
 * Playwright's documented variables become the same request.
 */
import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { CACHE_MODE_VARIABLE, parseRunRequest, requestFromVariables, runRequestError, RUN_REQUEST_VERSION, type RunRequest } from './run-request.js';

const replay: RunRequest = { version: 1, cache: { mode: 'read-only', strict: true }, modelFree: true, debug: false };

describe('the run request', () => {
  it('reads back a request with every field, mutants included', () => {
    const full: RunRequest = {
      version: RUN_REQUEST_VERSION,
      cache: { mode: 'read-only', strict: true, proposals: '/project/proposal' },
      modelFree: true,
      debug: true,
      report: '/project/.e2e/audit-run.json',
      configProbe: '/tmp/e2e-record-1/config.json',
      parentPipe: 3,
      mutants: [{ id: 'control-1', project: 'web', testId: 'tests/a.e2e.ts::adds', file: 'tests/a.e2e.ts', titlePath: ['adds'], entry: 'aaaaaaaaaaaaaaaa', mutation: { kind: 'none' }, facts: '/project/.e2e/audit-facts/control-1.json' }],
    };
    expect(parseRunRequest(JSON.stringify(full))).toEqual({ kind: 'request', request: full });
  });

  it('refuses a newer version by name, before looking at its fields', () => {
    const read = parseRunRequest(JSON.stringify({ version: 2, cache: 'whatever it became' }));
    expect(read).toEqual({ kind: 'unsupported-version', version: 2 });
    if (read.kind === 'request') throw new Error('read');
    const error = runRequestError('/tmp/e2e-run-1/request.json', read);
    expect(isE2EError(error) && error.code).toBe('INVALID_CONFIG');
    expect(error.message).toContain('has version 2, newer than this e2e reads (1)');
  });

  it('names what is wrong with damaged input, never echoing it, with INVALID_CONFIG', () => {
    expect(parseRunRequest('{"version": 1, "cache": {')).toEqual({ kind: 'invalid', reason: 'it is not JSON' });
    const relative = parseRunRequest(JSON.stringify({ ...replay, report: 'report.json' }));
    expect(relative).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/^report: must be an absolute path/) as string });
    const unknown = parseRunRequest(JSON.stringify({ ...replay, cache: { ...replay.cache, mode: 'sometimes' } }));
    expect(unknown).toMatchObject({ kind: 'invalid', reason: expect.stringMatching(/^cache\.mode: /) as string });
    const extra = parseRunRequest(JSON.stringify({ ...replay, secretValue: 'hunter2-hunter2' }));
    expect(extra.kind).toBe('invalid');
    if (extra.kind !== 'invalid') throw new Error('read');
    const error = runRequestError('/tmp/r.json', extra);
    expect([error.code, error.message.includes('hunter2')]).toEqual(['INVALID_CONFIG', false]);
    expect(parseRunRequest(JSON.stringify({ ...replay, version: 0 })).kind).toBe('invalid');
  });

  it("makes plain Playwright's E2E_REPLAY=1 the request of `e2e replay`, and its cache mode variable a mode", () => {
    expect(requestFromVariables({ E2E_REPLAY: '1' })).toEqual(replay);
    expect(requestFromVariables({})).toEqual({ version: 1, cache: { strict: false }, modelFree: false, debug: false });
    expect(requestFromVariables({ [CACHE_MODE_VARIABLE]: 'off', E2E_REPLAY: '1' }).cache).toEqual({ mode: 'off', strict: true });
    expect(requestFromVariables({ [CACHE_MODE_VARIABLE]: '' }).cache).toEqual({ strict: false });
    expect(() => requestFromVariables({ [CACHE_MODE_VARIABLE]: 'readonly' })).toThrow(expect.objectContaining({ code: 'INVALID_CONFIG' }) as Error);
  });
});
