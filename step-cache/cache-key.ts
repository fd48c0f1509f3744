/**
 * The key parts of an intercepted step (DESIGN §6): project, test, target, engine name and
 * contract version, step kind, the instruction as written, params with secrets by name and
 * `unique()` values as placeholders, the occurrence, app identity, agent name, a digest of
 * the redacted agent context and the replay-policy version. Never the model, never a
 * secret value: {@link assertKeyPartsSafe} checks the parts before they are hashed.
 */
import { createHash } from 'node:crypto';
import { assertKeyPartsSafe, computeKey, normalizeInstruction, REPLAY_POLICY_VERSION, type KeyParts } from '../cache-format/index.js';
import { secretPlaceholder, type ParamSource } from '../contract/param-values.js';
import type { InterceptedStep } from '../contract/step-seams.js';

/** What the key takes from the run rather than from the step. */
export interface KeyScope {
  projectId: string;
  /** The test id key part; default the step's `attempt.testId`. */
  testId?: string | undefined;
  appIdentity: string;
  engine: { name: string; contractVersion: number };
  redact(text: string): string;
  /** Configured secret values, for the safety check. */
  secretValues: readonly string[];
}

/** A step's key and the parts it hashes. */
export interface StepKey {
  key: string;
  parts: KeyParts;
}

/** `<unique:name>`: how a `unique()` param enters the key. */
export function uniqueKeyPlaceholder(param: string): string {
  return `<unique:${param}>`;
}

/** Params as the key holds them: literals (redacted), secrets by name, `unique()` values as placeholders. */
export function keyParams(sources: Readonly<Record<string, ParamSource>>, redact: (text: string) => string): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, source] of Object.entries(sources)) {
    if (source.kind === 'secret') params[name] = secretPlaceholder(source.name);
    else if (source.kind === 'unique') params[name] = uniqueKeyPlaceholder(name);
    else params[name] = redact(source.value);
  }
  return params;
}

/** A short digest of the (already redacted) agent context: a changed context changes the key without storing it. */
export function contextDigest(context: string): string {
  return createHash('sha256').update(context.normalize('NFC'), 'utf8').digest('hex').slice(0, 16);
}

/**
 * The occurrence identity of a step: kind, normalized instruction and key params. Two calls
 * with different `unique()` values are the same instruction+params, so they count as
 * occurrences 0 and 1 rather than colliding on one key.
 */
export function occurrenceIdentity(
  step: { kind: InterceptedStep['info']['kind']; template: string; paramSources: Readonly<Record<string, ParamSource>> },
  redact: (text: string) => string,
): string {
  return JSON.stringify([step.kind, normalizeInstruction(step.template), Object.entries(keyParams(step.paramSources, redact)).sort()]);
}

/** Counts the steps of one attempt by {@link occurrenceIdentity}: each step's occurrence key part. */
export class OccurrenceCounter {
  readonly #seen = new Map<string, number>();

  /** The occurrence of `step` (0 for the first of its identity); call once per step, in order. */
  next(step: Pick<InterceptedStep, 'info' | 'template' | 'paramSources'>, redact: (text: string) => string): number {
    const identity = occurrenceIdentity({ kind: step.info.kind, template: step.template, paramSources: step.paramSources }, redact);
    const occurrence = this.#seen.get(identity) ?? 0;
    this.#seen.set(identity, occurrence + 1);
    return occurrence;
  }
}

/**
 * The key of `step` at `occurrence`; a judgment also passes the keys of the `act` steps before
 * it (`preceding`). Throws `INVALID_STATE` if a part would hold a secret value (a bug, never data).
 */
export async function stepKey(step: InterceptedStep, occurrence: number, scope: KeyScope, preceding?: readonly string[]): Promise<StepKey> {
  const parts: KeyParts = {
    projectId: scope.projectId,
    testId: scope.testId ?? step.attempt.testId,
    target: step.target.name,
    engine: scope.engine.name,
    engineContract: scope.engine.contractVersion,
    kind: step.info.kind,
    instruction: normalizeInstruction(scope.redact(step.template)),
    params: keyParams(step.paramSources, scope.redact),
    occurrence,
    appIdentity: scope.appIdentity,
    agent: step.agent.name,
    contextDigest: contextDigest(scope.redact(step.agent.context)),
    replayPolicy: REPLAY_POLICY_VERSION,
  };
  if (preceding !== undefined) parts.preceding = [...preceding];
  assertKeyPartsSafe(parts, scope.secretValues);
  return { key: await computeKey(parts), parts };
}
