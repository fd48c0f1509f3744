/**
 * What a cache command talks to (output streams, working folder, environment, exit), and the
 * one wrapper that turns a command's result or error into output and an exit code through
 * {@link EXIT_CODES}. Usage errors are `INVALID_ARGUMENT` errors: one line naming the fix, exit 2.
 */
import { exitClassOf, isE2EError, messageOf } from '../errors/index.js';
import { visibleOutput, visibleText } from '../semantics/visible-text.js';
import { outcomeOfExitClass, type CommandOutcome } from '../launch/command-outcome.js';
import { EXIT_CODES } from './exit-codes.js';

/** A stream a command writes text to. */
export interface OutputStream {
  write(text: string): unknown;
}

/** What the cache commands talk to; `main.ts` passes the process's, tests their own. */
export interface CommandIo {
  stdout: OutputStream;
  stderr: OutputStream;
  /** The folder relative paths start from. */
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
  /** Ends the command with an exit code. Default: sets `process.exitCode` (the process ends when the work is done). */
  exit?: (code: number) => void;
}

/** What a command's work produced: how it ended and the text to print. */
export interface CommandOutput {
  outcome: CommandOutcome;
  /** Printed to stdout (a newline is added when missing). */
  text: string;
  /** Printed to stderr, e.g. the reason behind a failing outcome. */
  problem?: string;
}

/** The text as printed: a newline at the end, and no raw control, bidi or zero-width character (entry text reaches every command's output). */
function withNewline(text: string): string {
  return visibleOutput(text === '' || text.endsWith('\n') ? text : `${text}\n`);
}

/** An error as the one line it is meant to be: a line break inside (a test id quoted from an entry) is spelled out too. */
function errorLine(message: string): string {
  return `${visibleText(message)}\n`;
}

/** Runs a command's work and prints its output; errors become one line on stderr and their exit class. */
export async function runCommandWork(io: CommandIo, work: () => Promise<CommandOutput>): Promise<void> {
  const exit = io.exit ?? ((code: number) => void (process.exitCode = code));
  let output: CommandOutput;
  try {
    output = await work();
  } catch (error) {
    if (isE2EError(error)) {
      io.stderr.write(errorLine(error.code === 'INVALID_ARGUMENT' ? `error: ${error.message}` : `${error.code}: ${error.message}`));
      exit(EXIT_CODES[outcomeOfExitClass(exitClassOf(error.code))]);
      return;
    }
    io.stderr.write(errorLine(`error: ${messageOf(error)}`));
    exit(EXIT_CODES.infrastructure);
    return;
  }
  io.stdout.write(withNewline(output.text));
  if (output.problem !== undefined) io.stderr.write(withNewline(output.problem));
  exit(EXIT_CODES[output.outcome]);
}
