/**
 * A test-only `e2e` binary with just the cache commands and `init` registered on a fresh
 * commander program (the real `cli/main.ts` wiring is the lead's). Run it with
 * `node --import tsx tests/cli-cache/support/cache-cli.ts cache ls`.
 */
import { Command } from 'commander';
import { registerCacheCommands, registerInitCommand } from '../../../cli/cache-commands.js';

const program = new Command('e2e').description('cache commands (test entry)');
const io = { stdout: process.stdout, stderr: process.stderr, cwd: process.cwd(), env: process.env };
registerCacheCommands(program, io);
registerInitCommand(program, io);
await program.parseAsync(process.argv);
