/**
 * The one table from command results to process exit codes (DESIGN §3, STYLE 15).
 */
import type { ExitClass } from '../errors/index.js';

/** How a command ended. */
export type CommandOutcome = 'passed' | 'test-failure' | 'configuration' | 'infrastructure' | 'interrupted';

/** Exit code of each outcome. */
export const EXIT_CODES: Readonly<Record<CommandOutcome, number>> = {
  passed: 0,
  'test-failure': 1,
  configuration: 2,
  infrastructure: 3,
  interrupted: 130,
};

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
