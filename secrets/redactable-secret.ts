/**
 * Which values can be redacted without garbling ordinary text: a value of one to three
 * characters, or a common word, occurs by chance in page text, in Playwright's and e2e's own
 * output and in encoded data, so redacting it would rewrite lines that never held the secret
 * (`Running 2 t<secret:token>sts`). Such a value is refused when the config loads, naming the
 * secret and the rule, never the value.
 */
import { E2EError } from '../errors/index.js';
import { squeezedCodes } from './squeezed-text.js';

/**
 * Fewest characters a secret must have, not counting spaces, dashes and colour codes (the
 * redactor ignores those between characters). At 4, a given run of letters and digits occurs
 * by chance about once in 36⁴ ≈ 1.7 million positions; at 3, once in 47,000 — every report.
 */
export const SHORTEST_SECRET = 4;

/**
 * Words that ordinary text, placeholder values, and e2e's and Playwright's own output hold
 * (the roles on every screen line, the run summary, report statuses, the `<secret:…>` mark):
 * a secret equal to one of them, in any case, would be redacted out of every line that uses it.
 */
export const COMMON_WORDS: ReadonlySet<string> = new Set([
  // Everyday words and placeholder values.
  'that', 'this', 'with', 'from', 'have', 'will', 'your', 'what', 'when', 'there', 'their', 'about', 'which', 'other',
  'true', 'false', 'null', 'none', 'undefined', 'test', 'tests', 'example', 'value', 'name', 'text', 'hello', 'world',
  'password', 'passw0rd', 'secret', 'admin', 'user', 'root', 'guest', 'login', 'default', 'changeme', 'letmein', 'qwerty',
  '1234', '12345', '123456', '12345678', '0000', 'abcd', 'http', 'https', 'localhost',
  // e2e's and Playwright's own words: screen roles, summary, statuses.
  'screen', 'revision', 'path', 'nodes', 'document', 'button', 'link', 'textbox', 'checkbox', 'listitem', 'list', 'heading',
  'dialog', 'status', 'alert', 'main', 'form', 'image', 'focused', 'checked', 'disabled', 'selected', 'expanded', 'pressed',
  'secure', 'cache', 'model', 'calls', 'tokens', 'agent', 'step', 'steps', 'replayed', 'handed', 'recorded', 'missed',
  'unverified', 'passed', 'failed', 'blocked', 'skipped', 'error', 'errors', 'running', 'worker', 'workers', 'expected',
  'unexpected', 'flaky', 'timeout',
]);

/** Why `value` cannot be redacted safely, or undefined when it can. */
export function unsafeSecretReason(value: string): string | undefined {
  const squeezed = new TextDecoder('utf-16le').decode(squeezedCodes(value.normalize('NFKC')));
  const characters = [...squeezed].length;
  if (characters < SHORTEST_SECRET) {
    return `its value has ${characters} character${characters === 1 ? '' : 's'} (not counting spaces and dashes), fewer than the ${SHORTEST_SECRET} a secret needs to be redacted without garbling ordinary text`;
  }
  if (COMMON_WORDS.has(squeezed)) return 'its value is a common word that ordinary text and e2e\'s own output hold, so redacting it would garble them';
  return undefined;
}

/**
 * Refuse every secret that cannot be redacted safely: `INVALID_CONFIG` naming each (by the
 * name the config or the environment gives it) and the rule, never the value. Absent and
 * empty values pass (typing one fails `SECRET_UNAVAILABLE` later).
 */
export function refuseUnsafeSecrets(secrets: Iterable<readonly [name: string, value: string | undefined]>): void {
  const problems: string[] = [];
  for (const [name, value] of secrets) {
    if (value === undefined || value === '') continue;
    const reason = unsafeSecretReason(value);
    if (reason !== undefined) problems.push(`the secret \`${name}\` cannot be redacted safely: ${reason}`);
  }
  if (problems.length === 0) return;
  throw new E2EError(
    'INVALID_CONFIG',
    `Invalid e2e config: ${problems.join('; ')}. Use a value of at least ${SHORTEST_SECRET} characters that is not a common word, or leave it out of \`secrets\`.`,
  );
}
