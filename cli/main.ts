#!/usr/bin/env node
/**
 * The `e2e` binary: commander parses, a command function does the work and returns a
 * result, and {@link EXIT_CODES} maps it to the exit code. The only place (besides the
 * runner entry) that touches the console and `process.exit`.
 */
import { Command, Option } from 'commander';
import { EXIT_CODES, type CommandOutcome } from './exit-codes.js';
import { registerCacheCommands, registerInitCommand } from './cache-commands.js';
import { startRun, type RunCommandOptions } from './run-command.js';

function finish(outcome: CommandOutcome, message?: string): never {
  if (message !== undefined) process.stderr.write(`${message}\n`);
  process.exit(EXIT_CODES[outcome]);
}

function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

const program = new Command('e2e')
  .description('Cache-first record/replay for end-to-end tests written in plain language.')
  .showHelpAfterError();

program
  .command('run')
  .description('run the tests with the configured cache mode (read-write locally, read-only when CI is set)')
  .argument('[filter...]', 'test file filters, passed to Playwright Test')
  .option('-c, --config <file>', 'config file (default: e2e.config.ts in the current folder)')
  .option('-g, --grep <pattern>', 'only tests whose title matches')
  .addOption(new Option('--project <name>', 'only this target (repeatable)').argParser(collect))
  .option('-j, --workers <count>', 'parallel workers')
  .option('--retries <count>', 'retries of a failed test')
  .option('--shard <current/total>', 'run one shard, e.g. 1/4')
  .option('--reporter <names>', "Playwright reporters (comma-separated); e2e's own report is always written")
  .option('--no-cache', 'neither replay nor record (cache mode off)')
  .option('--debug', 'attach model transcripts and print debug lines')
  .allowExcessArguments(false)
  .action(async (filters: string[], flags: Record<string, unknown>) => {
    const separator = process.argv.indexOf('--');
    const extra = separator === -1 ? [] : process.argv.slice(separator + 1);
    const options: RunCommandOptions = {
      filters: filters.slice(0, filters.length - extra.length),
      config: flags['config'] as string | undefined,
      grep: flags['grep'] as string | undefined,
      project: flags['project'] as string[] | undefined,
      workers: flags['workers'] as string | undefined,
      retries: flags['retries'] as string | undefined,
      shard: flags['shard'] as string | undefined,
      reporter: flags['reporter'] as string | undefined,
      cache: flags['cache'] !== false,
      debug: flags['debug'] === true,
      extra,
      cwd: process.cwd(),
      env: process.env,
    };
    const run = startRun(options);
    const onInterrupt = () => run.interrupt();
    process.on('SIGINT', onInterrupt);
    process.on('SIGTERM', onInterrupt);
    const result = await run.result;
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
    finish(result.outcome, result.message);
  });

const io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
registerCacheCommands(program, io);
registerInitCommand(program, io);

await program.parseAsync(process.argv);
