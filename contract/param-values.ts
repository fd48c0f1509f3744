/**
 * What a caller may pass in `params`, and the placeholders they show as. A `SecretRef` prints
 * as `<secret:name>` wherever it is serialized or inspected (STYLE 10); a `UniqueValue` enters
 * the cache key as a placeholder. Values are resolved by the runner's vault, never here.
 */
import { E2EError } from '../errors/index.js';

const SECRET_BRAND = Symbol.for('e2e.secret-ref');
const UNIQUE_BRAND = Symbol.for('e2e.unique-value');
const INSPECT = Symbol.for('nodejs.util.inspect.custom');

/** A configured secret passed by name; it never holds the value. */
export interface SecretRef {
  readonly [SECRET_BRAND]: true;
  readonly name: string;
  toJSON(): string;
  toString(): string;
}

/** A run-time value (timestamp, fresh email) that enters the cache key as a placeholder. */
export interface UniqueValue {
  readonly [UNIQUE_BRAND]: true;
  readonly value: string;
  toJSON(): string;
  toString(): string;
}

/** The placeholder that stands for a secret in every text the runner hands out. */
export function secretPlaceholder(name: string): string {
  return `<secret:${name}>`;
}

const SECRET_NAME = /^[A-Za-z_][A-Za-z0-9_.-]{0,63}$/;

/** Pass the configured secret `name` to a step; the model sees only the name. */
export function secret(name: string): SecretRef {
  if (typeof name !== 'string' || !SECRET_NAME.test(name)) {
    throw new E2EError(
      'INVALID_ARGUMENT',
      'secret(name) needs the name of a configured secret (letters, digits, `_`, `.`, `-`; starting with a letter), not its value.',
    );
  }
  const placeholder = secretPlaceholder(name);
  return Object.freeze({
    [SECRET_BRAND]: true as const,
    name,
    toJSON: () => placeholder,
    toString: () => placeholder,
    [INSPECT]: () => placeholder,
  });
}

/** True for a {@link SecretRef} (works across module copies). */
export function isSecretRef(value: unknown): value is SecretRef {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[SECRET_BRAND] === true;
}

/**
 * Mark a run-time value so the cache keys it as a placeholder and substitutes the current
 * value on replay. Without an argument, a fresh value is generated.
 */
export function unique(value?: string | number): UniqueValue {
  if (value !== undefined && typeof value !== 'string' && typeof value !== 'number') {
    throw new E2EError('INVALID_ARGUMENT', 'unique(value) takes a string or a number.');
  }
  const text =
    value === undefined ? `${Date.now().toString(36)}${Math.floor(Math.random() * 36 ** 4).toString(36)}` : String(value);
  return Object.freeze({
    [UNIQUE_BRAND]: true as const,
    value: text,
    toJSON: () => text,
    toString: () => text,
    [INSPECT]: () => `unique(${JSON.stringify(text)})`,
  });
}

/** True for a {@link UniqueValue} (works across module copies). */
export function isUniqueValue(value: unknown): value is UniqueValue {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[UNIQUE_BRAND] === true;
}

/** A value a caller may pass in `params`. */
export type ParamValue = string | number | boolean | SecretRef | UniqueValue;

/** Where a param value came from. */
export type ParamSource =
  | { kind: 'literal'; value: string }
  | { kind: 'unique'; value: string }
  | { kind: 'secret'; name: string };
