/**
 * Cache keys (DESIGN §6): XXH64 of the canonical encoding of the key parts. The parts never
 * hold the model or a secret value: callers pass secrets as `<secret:name>` and `unique()`
 * values as `<unique:name>` placeholders, and {@link assertKeyPartsSafe} checks it.
 */
import { E2EError } from '../errors/index.js';
import { canonicalEncode } from './canonical-encoding.js';
import { keyPartsSchema, type KeyParts } from './entry.js';
import { hashTextHex } from './hashing.js';

/**
 * Version of the replay rules baked into every key (`keyParts.replayPolicy`). Bump it when a
 * change to how entries are replayed makes old recordings untrustworthy: every key changes,
 * so every entry misses once and is recorded afresh.
 */
export const REPLAY_POLICY_VERSION = 1;

/** Object keys that are refused anywhere in keys and entries (they could reach a prototype). */
export const RESERVED_NAMES: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

const CACHE_KEY_PATTERN = /^[0-9a-f]{16}$/;

/** True when `value` has the shape of a cache key (16 lower-case hex digits). */
export function isCacheKey(value: string): boolean {
  return CACHE_KEY_PATTERN.test(value);
}

/**
 * The instruction as it takes part in the key: Unicode NFC, surrounding whitespace trimmed,
 * inner runs of whitespace collapsed to one space. Case is kept (`Save` and `save` may be
 * different buttons).
 */
export function normalizeInstruction(instruction: string): string {
  return instruction.normalize('NFC').trim().replace(/\s+/gu, ' ');
}

/**
 * The cache key of a step: 16 lower-case hex digits. Throws `INVALID_ARGUMENT` (a programmer
 * error) when `parts` does not match the key-parts schema (an extra part such as a model
 * name is refused) or uses a reserved param name.
 */
export async function computeKey(parts: KeyParts): Promise<string> {
  const checked = keyPartsSchema.safeParse(parts);
  if (!checked.success) {
    const issue = checked.error.issues[0];
    const where = issue === undefined ? '' : ` at \`${issue.path.join('.')}\``;
    throw new E2EError('INVALID_ARGUMENT', `computeKey: the key parts do not match the key-parts schema${where}.`);
  }
  for (const name of Object.keys(parts.params)) {
    if (RESERVED_NAMES.has(name)) {
      throw new E2EError('INVALID_ARGUMENT', `computeKey: \`${name}\` is a reserved name and cannot be a param name; rename the param.`);
    }
  }
  return hashTextHex(canonicalEncode(canonicalKeyParts(parts)));
}

/** The parts exactly as they are hashed (instruction normalized). */
function canonicalKeyParts(parts: KeyParts): KeyParts {
  return { ...parts, instruction: normalizeInstruction(parts.instruction) };
}

/** Secrets shorter than this are checked for equality only (a substring test would flag ordinary words). */
const MIN_SUBSTRING_SECRET_LENGTH = 4;

/**
 * Defensive check before a key is computed or an entry written: throws `INVALID_STATE` (a
 * programmer error) when any key part holds one of `secretValues`. The message names the key
 * part, never the value. Empty secrets are ignored.
 */
export function assertKeyPartsSafe(parts: KeyParts, secretValues: Iterable<string>): void {
  const secrets = [...secretValues].filter((secret) => secret.length > 0);
  if (secrets.length === 0) return;
  for (const [path, text] of keyPartTexts(parts)) {
    for (const secret of secrets) {
      const leaked = secret.length >= MIN_SUBSTRING_SECRET_LENGTH ? text.includes(secret) : text === secret;
      if (leaked) {
        throw new E2EError(
          'INVALID_STATE',
          `The cache key part \`${path}\` holds a secret value; pass secrets by name (\`<secret:name>\`) so no key is derived from a secret.`,
        );
      }
    }
  }
}

function* keyPartTexts(parts: KeyParts): Generator<[string, string]> {
  for (const [name, value] of Object.entries(parts)) {
    if (typeof value === 'string') yield [name, value];
    else if (typeof value === 'number') yield [name, String(value)];
  }
  for (const [name, value] of Object.entries(parts.params)) {
    yield [`params.${name}`, name];
    yield [`params.${name}`, value];
  }
}

/** How a miss explanation names the agent's context (a miss on it alone is `wrong-context`). */
export const CONTEXT_KEY_PART = "the agent's context";

/** A key part and how a miss explanation names it. */
const KEY_PART_PHRASES: ReadonlyArray<readonly [phrase: string, differs: (a: KeyParts, b: KeyParts) => boolean]> = [
  ['the instruction', (a, b) => normalizeInstruction(a.instruction) !== normalizeInstruction(b.instruction)],
  ['the params', (a, b) => canonicalEncode(a.params) !== canonicalEncode(b.params)],
  [CONTEXT_KEY_PART, (a, b) => a.contextDigest !== b.contextDigest],
  ['the occurrence index', (a, b) => a.occurrence !== b.occurrence],
  ['the steps before it', (a, b) => (a.preceding ?? []).join(',') !== (b.preceding ?? []).join(',')],
  ['the app identity', (a, b) => a.appIdentity !== b.appIdentity],
  ['the engine', (a, b) => a.engine !== b.engine || a.engineContract !== b.engineContract],
  ['the agent', (a, b) => a.agent !== b.agent],
  ['the target', (a, b) => a.target !== b.target],
  ['the step kind', (a, b) => a.kind !== b.kind],
  ['the test', (a, b) => a.testId !== b.testId],
  ['the project', (a, b) => a.projectId !== b.projectId],
  ['the replay policy', (a, b) => a.replayPolicy !== b.replayPolicy],
];

/**
 * Which key parts differ between the nearest recorded entry and the key wanted now, as
 * phrases for a miss explanation (`the instruction`, `the agent's context`, …), most
 * telling first. Empty when the parts hash alike.
 */
export function explainKeyChange(nearest: KeyParts, wanted: KeyParts): string[] {
  return KEY_PART_PHRASES.filter(([, differs]) => differs(nearest, wanted)).map(([phrase]) => phrase);
}
