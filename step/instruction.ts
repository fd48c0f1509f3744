/**
 * Instruction preparation: validate the call, fill `{name}` placeholders from `params`,
 * show secrets as `<secret:name>`, and remember where each param value came from so the
 * cache can key `unique()` values as placeholders and secrets by name.
 */
import { E2EError, didYouMean } from '../errors/index.js';
import { isSecretRef, isUniqueValue, secretPlaceholder, type ParamSource, type ParamValue } from '../contract/param-values.js';
import type { SecretVault } from '../secrets/vault.js';

export type { ParamSource, ParamValue } from '../contract/param-values.js';

/** A prepared instruction. */
export interface PreparedInstruction {
  /** The instruction as written, placeholders kept (for the cache key). */
  template: string;
  /** Placeholders filled, secrets as `<secret:name>` (a secret's value written in reads `<secret:name>` too). */
  instruction: string;
  /** Params as the executor sees them (secrets as `<secret:name>`). */
  params: Record<string, string>;
  /** Where each param came from. */
  sources: Record<string, ParamSource>;
  /**
   * Secrets the step may type: exactly the params given as `secret()`. Nothing in the instruction
   * text grants one: not a secret's name as a word, not a `<secret:name>` token, not its value.
   */
  secretNames: string[];
  /** What the step should say about the call: a secret's value written into the words or a plain param, and the fix. */
  warnings: string[];
}

const PLACEHOLDER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function isParamValue(value: unknown): value is ParamValue {
  return (
    typeof value === 'string' ||
    (typeof value === 'number' && Number.isFinite(value)) ||
    typeof value === 'boolean' ||
    isSecretRef(value) ||
    isUniqueValue(value)
  );
}

/** Validate an instruction argument (`method` names the call in messages). */
export function requireInstruction(instruction: unknown, method: string): string {
  if (typeof instruction !== 'string') {
    throw new E2EError('INVALID_ARGUMENT', `${method} takes the instruction as a string as its first argument, not ${describeType(instruction)}.`);
  }
  if (instruction.trim().length === 0) {
    throw new E2EError('INVALID_ARGUMENT', `${method} needs a non-empty instruction; say what should happen, e.g. ${method}('add a todo "Buy milk"').`);
  }
  return instruction;
}

/** A short type description for messages (never the value). */
export function describeType(value: unknown): string {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/**
 * Fill and check an instruction. Throws `INVALID_ARGUMENT` (bad params, unknown placeholder) or
 * `SECRET_UNAVAILABLE` (unknown secret name). A secret's value written into the words or a plain
 * param reads `<secret:name>` and comes with a warning naming the fix.
 */
export function prepareInstruction(
  template: string,
  params: Record<string, unknown> | undefined,
  vault: SecretVault,
  method: string,
): PreparedInstruction {
  if (params !== undefined && (params === null || typeof params !== 'object' || Array.isArray(params))) {
    throw new E2EError('INVALID_ARGUMENT', `${method}: \`params\` must be an object of name → value, not ${describeType(params)}.`);
  }
  const sources: Record<string, ParamSource> = {};
  const shown: Record<string, string> = {};
  const secretNames = new Set<string>();
  for (const [name, value] of Object.entries(params ?? {})) {
    if (!isParamValue(value)) {
      throw new E2EError(
        'INVALID_ARGUMENT',
        `${method}: param \`${name}\` is ${describeType(value)}; params take strings, numbers, booleans, unique() or secret().`,
      );
    }
    if (isSecretRef(value)) {
      if (!vault.has(value.name)) {
        throw new E2EError(
          'SECRET_UNAVAILABLE',
          `${method}: param \`${name}\` names the secret \`${value.name}\`, which is not configured${didYouMean(value.name, vault.names())}; add it to \`secrets\` in e2e.config.ts.`,
        );
      }
      sources[name] = { kind: 'secret', name: value.name };
      shown[name] = secretPlaceholder(value.name);
      secretNames.add(value.name);
    } else if (isUniqueValue(value)) {
      sources[name] = { kind: 'unique', value: value.value };
      shown[name] = value.value;
    } else {
      sources[name] = { kind: 'literal', value: String(value) };
      shown[name] = String(value);
    }
  }
  const filled = template.replace(PLACEHOLDER, (_match, name: string) => {
    const value = shown[name];
    if (value === undefined) {
      const known = Object.keys(shown);
      const hint = known.length === 0 ? ' (no params were passed)' : didYouMean(name, known);
      throw new E2EError(
        'INVALID_ARGUMENT',
        `${method}: the instruction uses the placeholder {${name}}, but \`params\` has no \`${name}\`${hint}; pass it in { params: { ${name}: … } }.`,
      );
    }
    return value;
  });
  const warnings = maskWrittenSecrets(method, vault, filled, sources, shown);
  // A secret's name, a `<secret:name>` token or a written value in the words stays a word, never a grant.
  return { template, instruction: vault.redact(filled), params: shown, sources, secretNames: [...secretNames].sort(), warnings };
}

/**
 * A secret's value written into the instruction or a plain param reads `<secret:name>`, as the
 * seeds document it (`ctx.step`), so no executor, model, report or key ever holds it; it grants
 * nothing (only a `secret()` param lets a step type a secret). The step warns, naming the secret
 * (never the value) and the fix: the value still sits in the test's source. `sources` and
 * `shown` are masked in place.
 */
function maskWrittenSecrets(method: string, vault: SecretVault, filled: string, sources: Record<string, ParamSource>, shown: Record<string, string>): string[] {
  const where: Array<[place: string, names: string[]]> = [];
  for (const [name, source] of Object.entries(sources)) {
    if (source.kind === 'secret') continue;
    const names = vault.secretsIn(source.value);
    if (names.length === 0) continue;
    where.push([`param \`${name}\``, names]);
    sources[name] = { ...source, value: vault.redact(source.value) };
    shown[name] = vault.redact(shown[name] ?? source.value);
  }
  const inWords = vault.secretsIn(filled).filter((name) => !where.some(([, names]) => names.includes(name)));
  if (inWords.length > 0) where.push(['the instruction', inWords]);
  return where.map(([place, names]) => {
    const first = names[0]!;
    const listed = names.map((name) => `\`${name}\``).join(', ');
    return `${method}: ${place} holds the value of the secret ${listed}; the step reads it as <secret:${first}>, and it grants no typing. Pass it by name instead: { params: { ${first}: secret('${first}') } } and write {${first}} where it goes.`;
  });
}
