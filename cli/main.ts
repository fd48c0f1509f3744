#!/usr/bin/env node
/**
 * The `e2e` binary: commander parses, a command function does the work and returns a
 * result, and {@link EXIT_CODES} maps it to the exit code. The only place (besides the
 * runner entry) that touches the console and `process.exit`.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command, InvalidArgumentError, type CommanderError } from 'commander';
import { isE2EError, messageOf } from '../errors/index.js';
import type { AuditHandle, AuditOptions, AuditResult } from '../audit/index.js';
import { parseMinScore } from '../audit/min-score.js';
import { e2eVersion } from '../runner/e2e-version.js';
import { EXIT_CODES } from './exit-codes.js';
import { registerCacheCommands, registerInitCommand } from './cache-commands.js';
import { playwrightArgumentsOf, playwrightOptions } from './playwright-options.js';
import type { CommandOutcome, RunCommandOptions, RunKind } from '../launch/index.js';

function finish(outcome: CommandOutcome, message?: string): never {
  if (message !== undefined) process.stderr.write(`${message}\n`);
  process.exit(EXIT_CODES[outcome]);
}

const program = new Command('e2e')
  .description('Cache-first record/replay for end-to-end tests written in plain language.')
  .version(e2eVersion(), '-V, --version', "print e2e's version")
  .showHelpAfterError()
  // Inherited by every command created after it: a usage error exits 2, not Playwright's 1.
  .exitOverride((error: CommanderError) => process.exit(error.exitCode === 0 ? EXIT_CODES.passed : EXIT_CODES.configuration));

interface RunCommandSpec {
  name: RunKind;
  description: string;
  /** `--no-cache` and `--strict-cache` (run only). */
  modes: boolean;
  /** `--propose <dir>` (run and replay). */
  propose: boolean;
  /** `--audit` (record): record causal end checks once recorded, and re-audit. */
  audit: boolean;
}

const RUN_COMMANDS: RunCommandSpec[] = [
  { name: 'run', description: 'run the tests with the configured cache mode (read-write locally, read-only when CI is set)', modes: true, propose: true, audit: false },
  {
    name: 'record',
    description: 'run the tests with the cache read-write: the agent fills every gap, verified steps are saved',
    modes: false,
    propose: false,
    audit: true,
  },
  {
    name: 'replay',
    description: 'run the tests model-free: read-only and strict, no model is called; a step that cannot replay fails REPLAY_STALE (exit 2)',
    modes: false,
    propose: true,
    audit: false,
  },
];

/** The outcome with the higher exit code (130 > 3 > 2 > 1 > 0). */
function worse(left: CommandOutcome, right: CommandOutcome): CommandOutcome {
  return EXIT_CODES[right] > EXIT_CODES[left] ? right : left;
}

/** Run an audit (or, after `record --audit`, the causal one), forwarding interrupts; prints the table (or JSON) and returns its outcome. */
async function audit(options: AuditOptions, json: boolean, causal = false): Promise<CommandOutcome> {
  // Loaded when an audit runs: the CLI's start stays light for every other command.
  const { renderAudit, renderAuditJson, renderCausalAudit, startAudit, startCausalAudit } = await import('../audit/index.js');
  const start = causal ? startCausalAudit : startAudit;
  const handle: AuditHandle = start({ ...options, childStdout: json ? 'stderr' : undefined });
  const render = (result: AuditResult): string => (json ? renderAuditJson(result) : causal ? renderCausalAudit(result) : renderAudit(result));
  const onInterrupt = () => handle.interrupt();
  process.on('SIGINT', onInterrupt);
  process.on('SIGTERM', onInterrupt);
  try {
    const result = await handle.result;
    process.stdout.write(`${render(result)}\n`);
    return result.outcome;
  } catch (error) {
    process.stderr.write(`${isE2EError(error) ? `${error.code}: ` : 'error: '}${messageOf(error)}\n`);
    return 'configuration';
  } finally {
    process.off('SIGINT', onInterrupt);
    process.off('SIGTERM', onInterrupt);
  }
}

for (const spec of RUN_COMMANDS) {
  const command = program
    .command(spec.name)
    .description(spec.description)
    .argument('[filter...]', 'test file filters, passed to Playwright Test')
    .option('-c, --config <file>', 'config file (default: e2e.config.ts in the current folder)')
    .option('--reporter <reporter>', "Playwright reporters (comma-separated); e2e's own report is always written");
  const passthrough = playwrightOptions();
  for (const option of passthrough) command.addOption(option);
  if (spec.modes) {
    command
      .option('--no-cache', 'neither replay nor record (cache mode off)')
      .option('--strict-cache', 'a step whose entry no longer replays fails REPLAY_STALE instead of calling the model');
  }
  if (spec.propose) command.option('--propose <dir>', 'keep the cache read-only and write new and healed recordings to <dir> (merge with `e2e cache accept <dir>`)');
  if (spec.audit) command.option('--audit', 'record causal end checks: run the audit\'s mutants on the recorded entries, require every outcome a mutant removes, re-audit and print the score before and after (also `cache: { audit: \'record\' }`)');
  command
    .option('--debug', 'attach model transcripts, print debug lines and a per-step table of time, model calls, tokens and cache outcome')
    .allowExcessArguments(false)
    .action(async (filters: string[], flags: Record<string, unknown>) => {
      const separator = process.argv.indexOf('--');
      const extra = separator === -1 ? [] : process.argv.slice(separator + 1);
      const options: RunCommandOptions = {
        kind: spec.name,
        filters: filters.slice(0, filters.length - extra.length),
        config: flags['config'] as string | undefined,
        reporter: flags['reporter'] as string | undefined,
        playwright: playwrightArgumentsOf(passthrough, flags),
        cache: flags['cache'] !== false,
        strictCache: flags['strictCache'] === true,
        propose: flags['propose'] as string | undefined,
        debug: flags['debug'] === true,
        extra,
        cwd: process.cwd(),
        env: process.env,
      };
      const { readConfigProbe, startRun } = await import('../launch/index.js');
      // `e2e record` learns from its own run whether the config asks for causal end checks.
      const probeFolder = spec.audit ? await mkdtemp(join(tmpdir(), 'e2e-record-')) : undefined;
      const probePath = probeFolder === undefined ? undefined : join(probeFolder, 'config.json');
      if (probePath !== undefined) options.configProbe = probePath;
      const run = startRun(options);
      const onInterrupt = () => run.interrupt();
      process.on('SIGINT', onInterrupt);
      process.on('SIGTERM', onInterrupt);
      const result = await run.result;
      process.off('SIGINT', onInterrupt);
      process.off('SIGTERM', onInterrupt);
      const configured = probePath === undefined ? undefined : await readConfigProbe(probePath);
      if (probeFolder !== undefined) await rm(probeFolder, { recursive: true, force: true });
      const causal = flags['audit'] === true || configured?.recordAudit === true;
      if (causal && (result.outcome === 'passed' || result.outcome === 'test-failure')) {
        if (result.message !== undefined) process.stderr.write(`${result.message}\n`);
        // The record run's reporter told the config's folders: the audit does not load the config again to find its cache.
        const probed = configured === undefined ? undefined : { configDir: configured.configDir, cacheDirectory: configured.cacheDirectory };
        finish(worse(result.outcome, await audit({ filters: options.filters, config: options.config, playwright: options.playwright, extra, debug: options.debug, cwd: options.cwd, env: process.env, probed, recorded: result.report?.tests }, false, true)));
      }
      finish(result.outcome, result.message);
    });
}

program
  .command('merge-reports')
  .description("merge the blob reports of a sharded run (each shard's blob-report folder, from any machine) into one HTML report, one .e2e/report.json and one summary")
  .argument('<folder...>', 'folders holding blob reports (or the .zip files)')
  .option('-c, --config <file>', 'config file (default: e2e.config.ts in the current folder)')
  .option('--reporter <reporter>', "Playwright reporters for the merged report (comma-separated; default the config's); e2e's own report is always written")
  .action(async (folders: string[], flags: { config?: string; reporter?: string }) => {
    const { mergeReports } = await import('../launch/index.js');
    const result = await mergeReports({ folders, config: flags.config, reporter: flags.reporter, cwd: process.cwd(), env: process.env });
    finish(result.outcome, result.message);
  });

const io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
const cacheCommand = registerCacheCommands(program, io);

const auditCommand = cacheCommand
  .command('audit')
  .description('prove each entry can fail: replay model-free and read-only once per mutant (an action skipped or its handler broken, a judgment\'s evidence hidden); a mutant is caught when its step does not pass')
  .argument('[filter...]', 'test file filters, passed to Playwright Test')
  .option('-c, --config <file>', 'config file (default: e2e.config.ts in the current folder)')
  .option('--reporter <reporter>', "Playwright reporters (comma-separated); e2e's own report is always written");
const auditPassthrough = playwrightOptions();
for (const option of auditPassthrough) auditCommand.addOption(option);
auditCommand
  .option('--min-score <score>', 'exit 1 when the score (caught / judged mutants) is below this number from 0 to 1', (value: string) => {
    try {
      return parseMinScore(value);
    } catch (error) {
      throw new InvalidArgumentError(messageOf(error));
    }
  })
  .option('--since <base>', 'audit only the entries the cache adds or changes against <base>, a git revision (origin/main) or a cache folder: with --min-score, a CI gate on what a pull request records')
  .option('--json', 'print the audit as JSON (Playwright\'s output goes to stderr)')
  .option('--debug', 'attach transcripts, print debug lines and the per-step table of the mutant run')
  .allowExcessArguments(false)
  .action(async (filters: string[], flags: Record<string, unknown>) => {
    const separator = process.argv.indexOf('--');
    const extra = separator === -1 ? [] : process.argv.slice(separator + 1);
    const options: AuditOptions = {
      filters: filters.slice(0, filters.length - extra.length),
      config: flags['config'] as string | undefined,
      reporter: flags['reporter'] as string | undefined,
      playwright: playwrightArgumentsOf(auditPassthrough, flags),
      debug: flags['debug'] === true,
      extra,
      cwd: process.cwd(),
      env: process.env,
      minScore: flags['minScore'] as number | undefined,
      since: flags['since'] as string | undefined,
    };
    finish(await audit(options, flags['json'] === true));
  });
registerInitCommand(program, io);

await program.parseAsync(process.argv);
