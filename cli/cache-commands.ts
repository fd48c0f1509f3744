/**
 * Commander wiring of `e2e cache …` and `e2e init` (STYLE 15: commander parses, a function
 * does the work and returns a result, a renderer prints it, {@link EXIT_CODES} gives the exit
 * code). Usage errors, commander's included, print one line naming the fix and exit 2.
 * Output is plain text (no colors), so it reads the same in a terminal, a pipe and CI logs.
 */
import { resolve } from 'node:path';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import type { CacheLocation } from '../cache-format/index.js';
import { DIFF_FORMATS, type DiffFormat } from '../review/cache-diff-render.js';
import { DEFAULT_PRUNE_GRACE_MS } from '../review/prune-grace.js';
import { usageError } from '../review/usage-error.js';
import { parseMinScore } from '../audit/min-score.js';
import type { ConfigFolders } from '../launch/index.js';
import { runCommandWork, type CommandIo } from './command-io.js';
import { EXIT_CODES } from './exit-codes.js';

// Each command loads the modules that do its work when it runs, not when the CLI starts (`e2e replay` loads no review code).
const review = () => import('../review/index.js');
const launch = () => import('../launch/index.js');

interface LocationFlags {
  cacheDir?: string;
  hitsDir?: string;
  config?: string;
  json?: boolean;
}

/** Routes commander's output to `io` and turns its usage errors into one line and exit 2. */
function configureCommand(command: Command, io: CommandIo, path: string): Command {
  return command
    .showHelpAfterError(false)
    .showSuggestionAfterError(true)
    .configureOutput({
      writeOut: (text) => void io.stdout.write(text),
      writeErr: (text) => void io.stderr.write(text),
      outputError: (text, write) => write(`${text.trimEnd()} (see \`${path} --help\`)\n`),
    })
    .exitOverride((error: CommanderError) => {
      const code = error.exitCode === 0 ? EXIT_CODES.passed : EXIT_CODES.configuration;
      if (io.exit === undefined) process.exit(code);
      io.exit(code);
      throw error;
    });
}

function withLocation(command: Command): Command {
  return command
    .option('-c, --config <file>', 'config file whose cache.dir to use (default: e2e.config.ts in the current folder)')
    .option('--cache-dir <dir>', "cache folder (default: the config's cache.dir, relative to the config; without a config, .e2e/cache)")
    .option('--hits-dir <dir>', "last-hit ledger folder (default: .e2e/hits beside the config's .e2e folder)");
}

function positiveInteger(value: string): number {
  const parsed = Number(value);
  if (!Number.isSafeInteger(parsed) || parsed < 1) throw new InvalidArgumentError('Expected a whole number of runs, 1 or more.');
  return parsed;
}

function nonNegativeMinutes(value: string): number {
  const parsed = Number(value);
  if (!Number.isFinite(parsed) || parsed < 0) throw new InvalidArgumentError('Expected minutes, 0 or more.');
  return parsed;
}

/**
 * Registers `cache ls|stats|show|diff|mv|prune|clear|accept` on `program` (as `program cache …`).
 * Returns the `cache` command.
 */
export function registerCacheCommands(program: Command, io: CommandIo): Command {
  const cache = configureCommand(program.command('cache'), io, 'e2e cache').description('inspect, review and maintain the replay cache');
  const location = async (flags: LocationFlags, probed?: ConfigFolders): Promise<CacheLocation> =>
    (await launch()).cacheLocationOf({ cwd: io.cwd, env: io.env, cacheDir: flags.cacheDir, hitsDir: flags.hitsDir, config: flags.config, probed });

  withLocation(configureCommand(cache.command('ls'), io, 'e2e cache ls'))
    .description('one row per entry (test, target, instruction, age, actions, last hit), grouped by test')
    .option('--json', 'print JSON')
    .action(async (flags: LocationFlags) =>
      runCommandWork(io, async () => {
        const { listCache, renderCacheList, renderCacheListJson } = await review();
        const result = await listCache(await location(flags));
        return { outcome: 'passed', text: flags.json === true ? renderCacheListJson(result) : renderCacheList(result, new Date()) };
      }),
    );

  withLocation(configureCommand(cache.command('stats'), io, 'e2e cache stats'))
    .description('entries, bytes and unreadable entries of the cache')
    .option('--json', 'print JSON')
    .action(async (flags: LocationFlags) =>
      runCommandWork(io, async () => {
        const { cacheStats, renderCacheStats, renderCacheStatsJson } = await review();
        const result = await cacheStats(await location(flags));
        return { outcome: 'passed', text: flags.json === true ? renderCacheStatsJson(result) : renderCacheStats(result) };
      }),
    );

  withLocation(configureCommand(cache.command('show'), io, 'e2e cache show'))
    .description('an entry as readable text; with --textconv, the cache file at a path (for git diff)')
    .argument('[entry]', 'a key, a unique key prefix or a blob name; with --textconv, a file path')
    .option('--json', 'print JSON')
    .option('--textconv', 'render the blob or ref file given as the argument (git textconv)')
    .action(async (argument: string | undefined, flags: LocationFlags & { textconv?: boolean }) =>
      runCommandWork(io, async () => {
        if (argument === undefined) throw usageError('name an entry: `e2e cache show <key or key prefix>` (see `e2e cache ls`).');
        const { renderCacheShow, renderCacheShowJson, showCacheEntry, textconvCacheFile } = await review();
        if (flags.textconv === true) return { outcome: 'passed', text: await textconvCacheFile(resolve(io.cwd, argument)) };
        const result = await showCacheEntry(await location(flags), argument);
        return { outcome: 'passed', text: flags.json === true ? renderCacheShowJson(result) : renderCacheShow(result) };
      }),
    );

  withLocation(configureCommand(cache.command('diff'), io, 'e2e cache diff'))
    .description('semantic diff of two cache states: git revisions or folders (default: HEAD vs the working tree)')
    .argument('[base]', 'git revision or cache folder (default: HEAD)')
    .argument('[head]', 'git revision or cache folder (default: the cache folder in the working tree)')
    .addOption(new Option('--format <format>', 'output format').choices(DIFF_FORMATS).default('text'))
    .option('--min-audit-score <score>', "exit 1 when an entry head adds or changes has no audit of its recording, or their audit score (caught / judged mutants) is below this number from 0 to 1", (value: string) => {
      try {
        return parseMinScore(value, '--min-audit-score');
      } catch (error) {
        throw new InvalidArgumentError(error instanceof Error ? error.message : String(error));
      }
    })
    .action(async (base: string | undefined, head: string | undefined, flags: LocationFlags & { format: DiffFormat; minAuditScore?: number }) =>
      runCommandWork(io, async () => {
        const { diffCache, renderDiff } = await review();
        const where = await location(flags);
        const result = await diffCache({ cwd: io.cwd, cacheDirectory: where.cacheDirectory, hitsDirectory: where.hitsDirectory, minAuditScore: flags.minAuditScore, base, head });
        return { outcome: result.audit?.failed === true ? 'test-failure' : 'passed', text: renderDiff(result, flags.format) };
      }),
    );

  withLocation(configureCommand(cache.command('mv'), io, 'e2e cache mv'))
    .description("move a renamed test's entries to its new test id (re-keyed as a fresh recording would be; all or nothing)")
    .argument('<from>', 'the old test id, as `e2e cache ls` shows it: <file>::<title path>')
    .argument('<to>', "the new test id; a bare title path keeps from's file")
    .option('--dry-run', 'list what would move, change nothing')
    .option('--force', 'replace entries already under a new key instead of refusing')
    .option('--json', 'print JSON')
    .action(async (from: string, to: string, flags: LocationFlags & { dryRun?: boolean; force?: boolean }) =>
      runCommandWork(io, async () => {
        const { moveTest, renderMove, renderMoveJson } = await review();
        const result = await moveTest(await location(flags), { from, to, dryRun: flags.dryRun === true, force: flags.force === true });
        return { outcome: 'passed', text: flags.json === true ? renderMoveJson(result) : renderMove(result) };
      }),
    );

  withLocation(configureCommand(cache.command('prune'), io, 'e2e cache prune'))
    .description('remove entries no current test reaches, old-schema and invalid entries, unreferenced blobs, leftovers of killed writers')
    .option('--dry-run', 'list what would be removed, remove nothing')
    .option('--unused-for <runs>', 'also remove entries neither replayed nor recorded in the last N runs', positiveInteger)
    .option('--grace <minutes>', 'keep temp files and unreferenced blobs younger than this', nonNegativeMinutes, DEFAULT_PRUNE_GRACE_MS / 60_000)
    .option('--json', 'print JSON')
    .action(async (flags: LocationFlags & { config?: string; dryRun?: boolean; unusedFor?: number; grace: number }) =>
      runCommandWork(io, async () => {
        const { findConfigFile, listTestInventory } = await launch();
        const { pruneCache, renderPrune, renderPruneJson } = await review();
        const configPath = findConfigFile(io.cwd, flags.config);
        if (configPath === undefined) throw usageError(`no config ${flags.config ?? 'e2e.config.ts'} found in ${io.cwd} to list the tests; pass --config <file>.`);
        const inventory = await listTestInventory({ configPath, cwd: io.cwd, env: io.env });
        // The listing probed the config too: its cache folder comes without loading the config again.
        const result = await pruneCache({ location: await location(flags, inventory.folders), inventory, dryRun: flags.dryRun === true, unusedForRuns: flags.unusedFor, graceMs: flags.grace * 60_000 });
        return { outcome: 'passed', text: flags.json === true ? renderPruneJson(result) : renderPrune(result) };
      }),
    );

  withLocation(configureCommand(cache.command('clear'), io, 'e2e cache clear'))
    .description('delete every entry this tool wrote in the cache folder (nothing else)')
    .option('--json', 'print JSON')
    .action(async (flags: LocationFlags) =>
      runCommandWork(io, async () => {
        const { clearCache, renderClear } = await review();
        const result = await clearCache(await location(flags));
        return { outcome: 'passed', text: flags.json === true ? JSON.stringify(result, null, 2) : renderClear(result) };
      }),
    );

  withLocation(configureCommand(cache.command('accept'), io, 'e2e cache accept'))
    .description('merge proposal folders (from `e2e run --propose <dir>`) into the cache, verifying every entry')
    .argument('<dir...>', 'proposal folders')
    .option('--dry-run', 'list what would be added and replaced, write nothing')
    .option('--json', 'print JSON')
    .action(async (folders: string[], flags: LocationFlags & { dryRun?: boolean }) =>
      runCommandWork(io, async () => {
        const { acceptProposals, renderAccept, renderAcceptJson } = await review();
        const proposals = folders.map((folder) => ({ directory: resolve(io.cwd, folder), label: folder }));
        const result = await acceptProposals(await location(flags), proposals, { dryRun: flags.dryRun === true });
        const text = flags.json === true ? renderAcceptJson(result) : renderAccept(result);
        return result.applied ? { outcome: 'passed', text } : { outcome: 'configuration', text };
      }),
    );

  return cache;
}

/** Registers `init` on `program`. Returns the command. */
export function registerInitCommand(program: Command, io: CommandIo): Command {
  return configureCommand(program.command('init'), io, 'e2e init')
    .description('scaffold e2e.config.ts, an example test, .gitignore and .gitattributes entries (never overwrites a file)')
    .option('--json', 'print JSON')
    .action(async (flags: { json?: boolean }) =>
      runCommandWork(io, async () => {
        const { initProject, renderInit } = await import('./init-command.js');
        const result = await initProject(io.cwd);
        return { outcome: 'passed', text: flags.json === true ? JSON.stringify(result, null, 2) : renderInit(result) };
      }),
    );
}
