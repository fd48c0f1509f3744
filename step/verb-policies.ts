/**
 * The policies a verb's parameters bring (by kind, `contract/verbs.ts`): a secret typed only
 * where it was granted, a configured secret's value never typed as text, uploads inside the
 * project, navigation only to allowed origins.
 */
import { E2EError, isE2EError } from '../errors/index.js';
import type { ScreenNode } from '../contract/engine.js';
import { describeUrl } from './origin-policy.js';
import type { PolicedScope } from './policed-scope.js';
import { checkUploadPaths } from './upload-policy.js';
import { EDITABLE_ROLES } from '../contract/roles.js';

/** The authorization of a `secret` parameter: granted to the step, configured, typed into an editable field on an allowed origin. */
export function authorizeSecret(scope: PolicedScope, name: string): (target: ScreenNode | undefined) => void {
  const { host, session } = scope;
  const deny = (reason: string): never => scope.deny(new E2EError('POLICY_DENIED', `typeSecret refused: ${reason}.`));
  return (target) => {
    if (!session.info.secrets.includes(name)) {
      deny(`the secret \`${name}\` was not handed to this step (its name or value in the instruction is no grant); pass it as a param, e.g. { params: { ${name}: secret('${name}') } }`);
    }
    try {
      host.vault.resolve(name);
    } catch (error) {
      if (isE2EError(error)) session.stop(error);
      throw error;
    }
    if (target !== undefined) {
      const editable = EDITABLE_ROLES.has(target.role) || target.states.includes('secure');
      if (!editable) deny(`#${target.id} is a ${target.role}, and secrets are typed only into editable fields`);
      if (target.states.includes('disabled')) {
        throw new E2EError('ACTION_FAILED', `typeSecret: #${target.id} is disabled; wait until the field is enabled.`);
      }
    }
    const decision = host.policy.checkSecret(name, host.engine.session.url(), host.vault.allowedOrigins(name));
    if (!decision.allowed) deny(decision.reason);
    host.markSecretFilled();
  };
}

/**
 * What a `typed` value holding a configured secret becomes: the secret's name when the value is
 * exactly one and the verb types it by name; otherwise a refusal that ends the step.
 */
export function secretInTypedValue(scope: PolicedScope, verb: string, text: string, onSecret: 'typeSecret' | 'refuse'): { secret: string } | undefined {
  const { vault } = scope.host;
  if (onSecret === 'typeSecret') {
    const name = vault.nameOfValue(text);
    if (name !== undefined) return { secret: name };
  }
  if (!vault.containsSecret(text)) return undefined;
  const fix = onSecret === 'typeSecret' ? 'type secrets alone with typeSecret(target, name)' : 'use typeSecret(target, name)';
  return scope.deny(new E2EError('POLICY_DENIED', `${verb} refused: the value contains a configured secret; ${fix}.`));
}

/** The authorization of a `paths` parameter: the checked paths once the upload policy passed them. */
export function authorizeUpload(scope: PolicedScope, paths: unknown): { authorize: () => Promise<void>; checked: () => string[] } {
  let checked: string[] = [];
  return {
    authorize: async () => {
      try {
        checked = await checkUploadPaths(paths as readonly string[], scope.host.projectRoot);
      } catch (error) {
        if (isE2EError(error) && error.code === 'POLICY_DENIED') scope.session.stop(error);
        throw error;
      }
    },
    checked: () => checked,
  };
}

/** A `url` parameter resolved against the current page, or `INVALID_ARGUMENT`. */
export function resolveNavigation(scope: PolicedScope, verb: string, text: string): { absolute: string; shown: string } {
  const current = scope.host.engine.session.url();
  let absolute: string;
  try {
    absolute = new URL(text, current === 'about:blank' ? undefined : current).href;
  } catch {
    throw new E2EError('INVALID_ARGUMENT', `ctx.actions.${verb}: \`${scope.redact(text)}\` is not a URL.`);
  }
  return { absolute, shown: scope.redact(describeUrl(absolute)) };
}

/** The authorization of a `url` parameter: the origin policy allows it, or the step ends. */
export function authorizeNavigation(scope: PolicedScope, absolute: string, shown: string): () => void {
  return () => {
    const decision = scope.host.policy.check(absolute);
    if (!decision.allowed) scope.deny(new E2EError('POLICY_DENIED', scope.redact(`Navigation to ${shown} refused: ${decision.reason}.`)));
  };
}
