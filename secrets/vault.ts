/**
 * The secrets of an attempt: a `SecretRef` (contract/param-values.ts) is looked up in the
 * {@link SecretVault} only at the moment it is typed. The vault also redacts every configured
 * value, in every form the redactor (redactor.ts) recognises, from any text.
 */
import { E2EError, didYouMean } from '../errors/index.js';
import { createSecretRedactor, type SecretRedactor } from './redactor.js';

export { secret, isSecretRef, unique, isUniqueValue, secretPlaceholder } from '../contract/param-values.js';
export type { SecretRef, UniqueValue } from '../contract/param-values.js';

/** One configured secret. */
export interface SecretDefinition {
  /** The value; `undefined` when not provided (typing it then fails `SECRET_UNAVAILABLE`). */
  value: string | undefined;
  /** Origins it may be typed on; default: every allowed origin. */
  origins?: string[] | undefined;
  /** What the secret is for ("the admin's password"), shown to the model beside its name. */
  purpose?: string | undefined;
}

/** Holds the configured secrets of an attempt: resolves by name, redacts every value. */
export class SecretVault {
  readonly #definitions: ReadonlyMap<string, SecretDefinition>;
  readonly #redactor: SecretRedactor;

  /**
   * `alsoRedact`: values that are redacted like the configured ones but cannot be typed (the
   * run's `E2E_SECRET_*` variables no config names), so everything the attempt lets out is
   * clean of every value the run knows.
   */
  constructor(definitions: Record<string, SecretDefinition>, options: { alsoRedact?: Iterable<readonly [name: string, value: string]> } = {}) {
    this.#definitions = new Map(Object.entries(definitions));
    const configured = [...this.#definitions].map(([name, definition]) => [name, definition.value] as const);
    const values = new Set(configured.map(([, value]) => value));
    // A configured value keeps its own name, whichever variable it also came from.
    const others = [...(options.alsoRedact ?? [])].filter(([, value]) => !values.has(value));
    this.#redactor = createSecretRedactor([...configured, ...others]);
  }

  /** Names of every configured secret (with or without a value). */
  names(): string[] {
    return [...this.#definitions.keys()];
  }

  /** True when `name` is configured. */
  has(name: string): boolean {
    return this.#definitions.has(name);
  }

  /**
   * The value of `name`, for the moment it is typed. Unknown names and missing values fail
   * `SECRET_UNAVAILABLE` with the fix.
   */
  resolve(name: string): string {
    const definition = this.#definitions.get(name);
    if (definition === undefined) {
      throw new E2EError(
        'SECRET_UNAVAILABLE',
        `No secret named \`${name}\` is configured${didYouMean(name, this.names())}; add it to \`secrets\` in e2e.config.ts.`,
      );
    }
    if (definition.value === undefined || definition.value.length === 0) {
      throw new E2EError(
        'SECRET_UNAVAILABLE',
        `The secret \`${name}\` has no value; set it in \`secrets\` or the environment variable ${environmentVariableFor(name)}.`,
      );
    }
    return definition.value;
  }

  /** What `name` is for, when its config says (redacted), else undefined. */
  purposeOf(name: string): string | undefined {
    const purpose = this.#definitions.get(name)?.purpose?.trim();
    return purpose === undefined || purpose === '' ? undefined : this.redact(purpose);
  }

  /** Origins `name` may be typed on, or `undefined` for every allowed origin. */
  allowedOrigins(name: string): readonly string[] | undefined {
    return this.#definitions.get(name)?.origins;
  }

  /**
   * Replace every configured secret value, in every recognisable form, in `text` with
   * `<secret:name>`; a text ending in `…` keeps no piece of a value before it.
   */
  redact(text: string): string {
    return this.#redactor.redact(text);
  }

  /** True when `text` holds a configured secret value in any redacted form. */
  containsSecret(text: string): boolean {
    return this.#redactor.contains(text);
  }

  /** Names of the secrets whose values `text` holds in any redacted form, sorted. */
  secretsIn(text: string): string[] {
    return this.#redactor.namesIn(text);
  }

  /** The name of the secret whose value is exactly `text`, if any. */
  nameOfValue(text: string): string | undefined {
    for (const [name, definition] of this.#definitions) if (definition.value !== undefined && definition.value === text) return name;
    return undefined;
  }
}

/** The environment variable a secret is read from: `E2E_SECRET_<NAME>` (upper case, `.`/`-` as `_`). */
export function environmentVariableFor(name: string): string {
  return `E2E_SECRET_${name.replace(/[.-]/g, '_').replace(/([a-z0-9])([A-Z])/g, '$1_$2').toUpperCase()}`;
}
