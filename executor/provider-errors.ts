/**
 * Provider faults, mapped in one place (DESIGN §5). Every model call of `executor/` goes
 * through {@link withProviderPolicy}: one attempt at a time under a request timeout, bounded
 * retries for rate limits and server errors that honour `retry-after`, cancellation by the
 * step's signal, and one closed mapping from whatever the provider threw to an `E2EError`.
 * The AI SDK's own retry is switched off (`maxRetries: 0`) so the waits stay ours: capped,
 * cancellable, and never longer than the step has left.
 */
import { APICallError, LoadAPIKeyError, NoSuchModelError } from '@ai-sdk/provider';
import { NoObjectGeneratedError, NoOutputGeneratedError } from 'ai';
import { E2EError, isE2EError } from '../errors/index.js';
import { sleep as cancellableSleep } from '../contract/deadline.js';
import { clip as clipText } from '../contract/text.js';

/** How model calls treat slow and failing providers. Every field has a default. */
export interface ProviderPolicy {
  /** Abandon a request (or a stream that went quiet) after this many ms. Default 60,000. */
  requestTimeoutMs?: number;
  /** Attempts per call for rate limits, server errors and dropped connections, the first included. Default 3. */
  maxAttempts?: number;
  /** Longest wait between attempts; a provider asking for more fails the call. Default 30,000. */
  maxRetryWaitMs?: number;
  /** Wait before retry n when the provider names none: `backoffMs * 2^(n-1)`. Default 1,000. */
  backoffMs?: number;
}

/** The defaults of {@link ProviderPolicy}. */
export const DEFAULT_PROVIDER_POLICY: Required<ProviderPolicy> = {
  requestTimeoutMs: 60_000,
  maxAttempts: 3,
  maxRetryWaitMs: 30_000,
  backoffMs: 1_000,
};

/** What {@link classifyProviderError} made of a thrown value. */
export type ProviderFault =
  | { kind: 'retryable'; error: E2EError; retryAfterMs?: number }
  | { kind: 'overflow'; error: E2EError }
  | { kind: 'final'; error: E2EError };

/** The parts of a step context a model call needs. */
export interface ProviderCallContext {
  signal: AbortSignal;
  /** Milliseconds left until the step deadline. */
  remainingMs(): number;
  /** Removes configured secret values from provider messages before they reach an error. */
  redact?(text: string): string;
}

/** Handed to each attempt: its own signal, and a hook that tells the timeout the stream is alive. */
export interface AttemptControls {
  signal: AbortSignal;
  /** Call on every streamed chunk; restarts the request timeout. */
  onActivity(): void;
}

const OVERFLOW_PATTERN =
  /context[_ ]length|context window|maximum context|too many tokens|prompt is too long|input is too long|reduce the length of the messages/i;
const MESSAGE_LIMIT = 300;

/** True when a provider error says the prompt is longer than the model accepts. */
export function isContextOverflow(error: unknown): boolean {
  if (!APICallError.isInstance(error)) return false;
  const status = error.statusCode;
  if (status !== undefined && status !== 400 && status !== 413 && status !== 422) return false;
  return OVERFLOW_PATTERN.test(`${error.message} ${error.responseBody ?? ''}`);
}

/** Milliseconds a rate-limited provider asked us to wait (`retry-after-ms`, `retry-after` seconds or date). */
export function retryAfterMs(headers: Record<string, string> | undefined, now = Date.now()): number | undefined {
  if (headers === undefined) return undefined;
  const lowered = Object.fromEntries(Object.entries(headers).map(([key, value]) => [key.toLowerCase(), value]));
  const milliseconds = Number.parseFloat(lowered['retry-after-ms'] ?? '');
  if (Number.isFinite(milliseconds) && milliseconds >= 0) return milliseconds;
  const header = lowered['retry-after'];
  if (header === undefined || header.trim() === '') return undefined;
  const seconds = Number(header.trim());
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(header);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

function clip(text: string, redact: ((text: string) => string) | undefined): string {
  const clean = (redact ?? ((value: string) => value))(text.replace(/\s+/g, ' ').trim());
  return clipText(clean, MESSAGE_LIMIT + 1);
}

/**
 * Sort a thrown value into retry, shrink-and-retry, or give up, and name it with an
 * `E2EError`. The one table from provider behaviour to error codes.
 */
export function classifyProviderError(error: unknown, redact?: (text: string) => string): ProviderFault {
  if (isE2EError(error)) return { kind: 'final', error };
  if (LoadAPIKeyError.isInstance(error)) {
    const message = `The model provider has no API key: ${clip(error.message, redact)} Set the key in the environment the provider reads.`;
    return { kind: 'final', error: new E2EError('MODEL_PROVIDER_FAILED', message, { cause: error }) };
  }
  if (NoSuchModelError.isInstance(error)) {
    const message = `The configured model does not exist: ${clip(error.message, redact)} Check the agent entry's model.`;
    return { kind: 'final', error: new E2EError('MODEL_UNAVAILABLE', message, { cause: error }) };
  }
  if (NoObjectGeneratedError.isInstance(error) || NoOutputGeneratedError.isInstance(error)) {
    const message = `The model's answer could not be used: ${clip(error.message, redact)}`;
    return { kind: 'final', error: new E2EError('MODEL_OUTPUT_INVALID', message, { cause: error }) };
  }
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const detail = clip(error.message, redact);
    if (isContextOverflow(error)) {
      const message = `The prompt is longer than the model accepts (${detail}). Shorten the step or use a model with a larger context.`;
      return { kind: 'overflow', error: new E2EError('CONTEXT_OVERFLOW', message, { cause: error }) };
    }
    if (status === 401 || status === 403) {
      const message = `The model provider refused the credentials (HTTP ${status}: ${detail}). Check the API key and its permissions.`;
      return { kind: 'final', error: new E2EError('MODEL_PROVIDER_FAILED', message, { cause: error }) };
    }
    // A 2xx whose body broke off (a dropped stream) is as transient as a dropped connection.
    const brokenAnswer = status !== undefined && status < 400;
    if (status === 429 || status === 408 || status === 409 || (status !== undefined && status >= 500) || status === undefined || brokenAnswer) {
      const label = status === undefined ? 'no HTTP answer' : brokenAnswer ? `the answer broke off after HTTP ${status}` : `HTTP ${status}`;
      const wait = retryAfterMs(error.responseHeaders);
      const failure = new E2EError('MODEL_PROVIDER_FAILED', `The model provider failed (${label}: ${detail}).`, { cause: error });
      return wait === undefined ? { kind: 'retryable', error: failure } : { kind: 'retryable', error: failure, retryAfterMs: wait };
    }
    const message = `The model provider rejected the request (HTTP ${status}: ${detail}).`;
    return { kind: 'final', error: new E2EError('MODEL_PROVIDER_FAILED', message, { cause: error }) };
  }
  const text = error instanceof Error ? `${error.name}: ${error.message}` : describeThrown(error);
  const connection = /fetch failed|ECONNRESET|ECONNREFUSED|socket|terminated|network/i.test(text);
  const failure = new E2EError('MODEL_PROVIDER_FAILED', `The model call failed: ${clip(text, redact)}`, { cause: error });
  return connection ? { kind: 'retryable', error: failure } : { kind: 'final', error: failure };
}

/** A readable line for a thrown value that is not an `Error` (e.g. an error chunk of a stream). */
function describeThrown(value: unknown): string {
  if (typeof value !== 'object' || value === null) return String(value);
  const record = value as { message?: unknown; error?: { message?: unknown } };
  if (typeof record.message === 'string') return record.message;
  if (typeof record.error?.message === 'string') return record.error.message;
  try {
    return JSON.stringify(value);
  } catch {
    return 'an unreadable error';
  }
}

/** The error a cancelled step raises: the signal's own `E2EError` reason, or `CANCELLED`. */
export function cancellationError(signal: AbortSignal): E2EError {
  const reason: unknown = signal.reason;
  if (isE2EError(reason)) return reason;
  return new E2EError('CANCELLED', 'The step was cancelled while waiting for the model.', { cause: reason });
}

/** Resolve after `milliseconds`, or reject with the step's cancellation as soon as `signal` aborts. */
export function sleep(milliseconds: number, signal: AbortSignal): Promise<void> {
  return cancellableSleep(milliseconds, signal, () => cancellationError(signal));
}

const TIMED_OUT = Symbol('request timed out');

/**
 * Run one model call under the provider policy. `attempt` performs a single request with the
 * signal it is given (pass it as `abortSignal`, with `maxRetries: 0`); the result of the
 * first attempt that succeeds is returned. Failures leave as `E2EError`s: `CANCELLED` or the
 * step's own stop when the step's signal aborted, `CONTEXT_OVERFLOW` (no retry here: the
 * caller shrinks the prompt), `MODEL_PROVIDER_FAILED` after the last attempt or when a
 * requested wait would be longer than the cap or the time the step has left.
 */
export async function withProviderPolicy<T>(
  context: ProviderCallContext,
  policy: ProviderPolicy | undefined,
  attempt: (controls: AttemptControls) => Promise<T>,
): Promise<T> {
  const settings = { ...DEFAULT_PROVIDER_POLICY, ...policy };
  const attempts = Math.max(1, Math.floor(settings.maxAttempts));
  for (let number = 1; ; number++) {
    if (context.signal.aborted) throw cancellationError(context.signal);
    const controller = new AbortController();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const arm = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      timer = setTimeout(() => controller.abort(TIMED_OUT), settings.requestTimeoutMs);
    };
    const forward = (): void => controller.abort(context.signal.reason);
    context.signal.addEventListener('abort', forward, { once: true });
    arm();
    try {
      return await attempt({ signal: controller.signal, onActivity: arm });
    } catch (error) {
      if (context.signal.aborted) throw cancellationError(context.signal);
      if (controller.signal.reason === TIMED_OUT) {
        const seconds = Math.round(settings.requestTimeoutMs / 100) / 10;
        throw new E2EError('MODEL_PROVIDER_FAILED', `The model provider did not answer within ${seconds} s (the request timeout).`, {
          cause: error,
        });
      }
      const fault = classifyProviderError(error, context.redact);
      if (fault.kind !== 'retryable') throw fault.error;
      if (number >= attempts) {
        throw new E2EError('MODEL_PROVIDER_FAILED', `${fault.error.message} Gave up after ${attempts} attempts.`, { cause: error });
      }
      const wait = fault.retryAfterMs ?? settings.backoffMs * 2 ** (number - 1);
      if (fault.retryAfterMs !== undefined && wait > settings.maxRetryWaitMs) {
        const message = `${fault.error.message} The provider asked to wait ${Math.ceil(wait / 1000)} s, more than the ${Math.ceil(settings.maxRetryWaitMs / 1000)} s allowed between attempts.`;
        throw new E2EError('MODEL_PROVIDER_FAILED', message, { cause: error });
      }
      const capped = Math.min(wait, settings.maxRetryWaitMs);
      if (capped >= context.remainingMs()) {
        const message = `${fault.error.message} Waiting ${Math.ceil(capped / 1000)} s for another attempt would pass the step deadline.`;
        throw new E2EError('MODEL_PROVIDER_FAILED', message, { cause: error });
      }
      await sleep(capped, context.signal);
    } finally {
      if (timer !== undefined) clearTimeout(timer);
      context.signal.removeEventListener('abort', forward);
    }
  }
}
