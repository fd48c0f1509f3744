/**
 * The score gates' argument (`cache audit --min-score`, `cache diff --min-audit-score`): a
 * number from 0 to 1. A module of its own so the CLI parses it without loading the audit.
 */
import { E2EError } from '../errors/index.js';

/** The `--min-score` argument (or another gate's, `flag`): a number from 0 to 1. */
export function parseMinScore(value: string, flag = '--min-score'): number {
  const score = Number(value);
  if (value.trim() === '' || !Number.isFinite(score) || score < 0 || score > 1) throw new E2EError('INVALID_ARGUMENT', `${flag} takes a number from 0 to 1, e.g. 0.9 (got ${value}).`);
  return score;
}
