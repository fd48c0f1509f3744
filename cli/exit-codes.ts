/**
 * The one table from command results to process exit codes (DESIGN §3, STYLE 15).
 */
import type { CommandOutcome } from '../launch/index.js';

/** Exit code of each outcome. */
export const EXIT_CODES: Readonly<Record<CommandOutcome, number>> = {
  passed: 0,
  'test-failure': 1,
  configuration: 2,
  infrastructure: 3,
  interrupted: 130,
};
