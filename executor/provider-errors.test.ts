import { APICallError, LoadAPIKeyError } from '@ai-sdk/provider';
import { describe, expect, it } from 'vitest';
import { isE2EError } from '../errors/index.js';
import { classifyProviderError, isContextOverflow, retryAfterMs, withProviderPolicy } from './provider-errors.js';

function apiError(statusCode: number | undefined, message: string, headers?: Record<string, string>, body?: string): APICallError {
  return new APICallError({
    message,
    url: 'http://127.0.0.1/v1/chat/completions',
    requestBodyValues: {},
    ...(statusCode === undefined ? {} : { statusCode }),
    ...(headers === undefined ? {} : { responseHeaders: headers }),
    ...(body === undefined ? {} : { responseBody: body }),
  });
}

const context = (signal = new AbortController().signal) => ({ signal, remainingMs: () => 60_000 });

describe('provider fault mapping', () => {
  it('reads retry-after as seconds, as a date, and retry-after-ms first', () => {
    expect(retryAfterMs({ 'retry-after': '2' })).toBe(2000);
    expect(retryAfterMs({ 'Retry-After': '0.5' })).toBe(500);
    expect(retryAfterMs({ 'retry-after-ms': '120', 'retry-after': '9' })).toBe(120);
    expect(retryAfterMs({ 'retry-after': new Date(10_000).toUTCString() }, 7_000)).toBe(3000);
    expect(retryAfterMs({ 'retry-after': 'soon' })).toBeUndefined();
    expect(retryAfterMs(undefined)).toBeUndefined();
  });

  it('sorts provider errors into retry, shrink and give up', () => {
    const limited = classifyProviderError(apiError(429, 'slow down', { 'retry-after': '3' }));
    expect(limited).toMatchObject({ kind: 'retryable', retryAfterMs: 3000 });
    expect(classifyProviderError(apiError(503, 'unavailable')).kind).toBe('retryable');
    expect(classifyProviderError(apiError(undefined, 'fetch failed')).kind).toBe('retryable');
    const refused = classifyProviderError(apiError(401, 'bad key'));
    expect(refused.kind).toBe('final');
    expect(refused.error.code).toBe('MODEL_PROVIDER_FAILED');
    expect(refused.error.message).toMatch(/refused the credentials \(HTTP 401/);
    expect(classifyProviderError(apiError(400, 'unsupported parameter')).error.code).toBe('MODEL_PROVIDER_FAILED');
    const overflow = apiError(400, 'This model maximum context length is 8192 tokens', undefined, '{"error":{"code":"context_length_exceeded"}}');
    expect(isContextOverflow(overflow)).toBe(true);
    expect(classifyProviderError(overflow)).toMatchObject({ kind: 'overflow', error: { code: 'CONTEXT_OVERFLOW' } });
    const noKey = classifyProviderError(new LoadAPIKeyError({ message: 'API key is missing.' }));
    expect(noKey.error.code).toBe('MODEL_PROVIDER_FAILED');
    expect(noKey.error.message).toMatch(/no API key/);
  });

  it('never puts a configured secret into an error message', () => {
    const fault = classifyProviderError(apiError(400, 'bad value hunter2 in prompt'), (text) => text.replaceAll('hunter2', '<secret:password>'));
    expect(fault.error.message).toContain('<secret:password>');
    expect(fault.error.message).not.toContain('hunter2');
  });

  it('retries a rate limit after the wait the provider asked for, then succeeds', async () => {
    const started: number[] = [];
    const result = await withProviderPolicy(context(), { maxAttempts: 3 }, () => {
      started.push(Date.now());
      if (started.length < 2) return Promise.reject(apiError(429, 'slow down', { 'retry-after': '0.2' }));
      return Promise.resolve('answer');
    });
    expect(result).toBe('answer');
    expect(started).toHaveLength(2);
    expect(started[1]! - started[0]!).toBeGreaterThanOrEqual(190);
  });

  it('gives up at once when the requested wait is longer than the cap or the step has left', async () => {
    let attempts = 0;
    const capped = withProviderPolicy(context(), { maxRetryWaitMs: 1_000 }, () => {
      attempts++;
      return Promise.reject(apiError(429, 'slow down', { 'retry-after': '120' }));
    });
    await expect(capped).rejects.toThrow(/asked to wait 120 s, more than the 1 s allowed/);
    expect(attempts).toBe(1);
    const late = withProviderPolicy({ signal: new AbortController().signal, remainingMs: () => 100 }, {}, () =>
      Promise.reject(apiError(503, 'busy', { 'retry-after': '1' })),
    );
    await expect(late).rejects.toThrow(/would pass the step deadline/);
  });

  it('stops waiting between attempts as soon as the step is cancelled', async () => {
    const controller = new AbortController();
    const waiting = withProviderPolicy(context(controller.signal), { backoffMs: 10_000 }, () => Promise.reject(apiError(500, 'oops')));
    setTimeout(() => controller.abort(), 50);
    const error: unknown = await waiting.catch((caught: unknown) => caught);
    expect(isE2EError(error) && error.code).toBe('CANCELLED');
  });

  it('abandons an attempt that does not answer within the request timeout, and tries no other', async () => {
    let attempts = 0;
    const stalled = withProviderPolicy(context(), { requestTimeoutMs: 150 }, ({ signal }) => {
      attempts++;
      return new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('aborted'))));
    });
    await expect(stalled).rejects.toThrow(/did not answer within 0.2 s/);
    expect(attempts).toBe(1);
  });
});
