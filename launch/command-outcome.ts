/**
 * How a command ended, by exit class (DESIGN §3): a run, a merge and an audit conclude with one
 * of these; `cli/exit-codes.ts` is the one table from them to process exit codes.
 */
import type { ExitClass } from '../errors/index.js';

/** How a command ended. */
export type CommandOutcome = 'passed' | 'test-failure' | 'configuration' | 'infrastructure' | 'interrupted';

const OUTCOME_OF_CLASS: Readonly<Record<ExitClass, CommandOutcome>> = {
  0: 'passed',
  1: 'test-failure',
  2: 'configuration',
  3: 'infrastructure',
  130: 'interrupted',
};

/** The outcome that an exit class (of an error code or a report) stands for. */
export function outcomeOfExitClass(exitClass: ExitClass): CommandOutcome {
  return OUTCOME_OF_CLASS[exitClass];
}
