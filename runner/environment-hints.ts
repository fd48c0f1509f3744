/**
 * Did-you-mean hints for environment variables that look like one e2e (or the config `e2e init`
 * writes) reads but are spelled otherwise (`OPENAI_APIKEY`, `E2E_OPENAI_COMPATIBLE_URI`): such
 * a typo otherwise shows only as "no model configured". Pure: the caller passes its environment.
 */
import { nearestName } from '../errors/index.js';
import { CACHE_MODE_VARIABLE, REPLAY_VARIABLE } from './run-request.js';

/** The variables the CLI, the runner and the config `e2e init` writes read by name. */
export const KNOWN_VARIABLES: readonly string[] = [
  'OPENAI_API_KEY',
  'ANTHROPIC_API_KEY',
  'E2E_OPENAI_COMPATIBLE_URL',
  'E2E_OPENAI_COMPATIBLE_KEY',
  'E2E_MODEL',
  'E2E_CHROMIUM_PATH',
  CACHE_MODE_VARIABLE,
  REPLAY_VARIABLE,
];

/** Families a near miss must belong to, so unrelated variables are never questioned. */
const WATCHED = /^(?:E2E_|OPENAI|ANTHROPIC)/i;

/**
 * One line per set variable that is not read but nearly matches one that is and is unset:
 * `OPENAI_APIKEY is set, but e2e reads OPENAI_API_KEY: did you mean it?`.
 */
export function environmentHints(env: Readonly<Record<string, string | undefined>>, known: readonly string[] = KNOWN_VARIABLES): string[] {
  const unset = known.filter((name) => env[name] === undefined || env[name] === '');
  const hints: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || value === '' || known.includes(name) || name.startsWith('E2E_SECRET_') || !WATCHED.test(name)) continue;
    const squeezed = name.toUpperCase().replace(/[^A-Z0-9]/g, '');
    const nearest = unset.find((candidate) => candidate.replace(/_/g, '') === squeezed) ?? nearestName(name.toUpperCase(), unset);
    if (nearest !== undefined) hints.push(`${name} is set, but e2e reads ${nearest}: did you mean it?`);
  }
  return hints;
}
