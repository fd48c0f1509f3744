/**
 * Bench section `cli-cpu` (issue 31: the CPU a CLI run costs, children included). The built
 * binary (`dist/cli/main.js`, `npm run bench` builds it) runs in a small Playwright project
 * (one test, a plain config), interleaved round by round with what it is compared to, and each
 * run's CPU seconds (user + system of the process and every child it waited for) come from the
 * shell's `times`.
 *
 * Figures: `cli_start_cpu_ms` (median CPU of `e2e --version`: the CLI's start, no work) and
 * `cli_start_vs_node_ratio` (that over a bare `node -e ''`, side by side: what loading the CLI
 * adds to Node's own start); `cache_ls_cpu_ms` (median of `e2e cache ls`: the CLI and one
 * Playwright listing that reads where the config keeps its cache) and
 * `cache_prune_vs_ls_cpu_ratio` (`e2e cache prune --dry-run` over `cache ls`: prune lists the
 * tests in that same listing, so about 1; it was 2 when prune loaded the config twice).
 *
 * Run alone with `node --import tsx bench/run.ts cli-cpu` after `npm run build`.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BenchContext, BenchSection } from './run.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const BINARY = join(ROOT, 'dist', 'cli', 'main.js');
const ROUNDS = 7;

function median(values: readonly number[]): number {
  const sorted = [...values].sort((left, right) => left - right);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** CPU seconds of `command` and the children it waited for, from the shell's `times` (its second line: children's user and system). */
function cpuSeconds(cwd: string, env: NodeJS.ProcessEnv, command: readonly string[]): number {
  const run = spawnSync('sh', ['-c', '"$@" >/dev/null 2>&1; status=$?; times; exit $status', 'sh', ...command], { cwd, env, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`${command.join(' ')} exited ${run.status} in ${cwd}`);
  const children = run.stdout.trim().split('\n')[1] ?? '';
  const seconds = [...children.matchAll(/(\d+)m([\d.]+)s/g)].map((match) => Number(match[1]) * 60 + Number(match[2]));
  if (seconds.length !== 2) throw new Error(`unexpected \`times\` output: ${run.stdout}`);
  return seconds[0]! + seconds[1]!;
}

/** The `cli-cpu` section. */
export const cliCpuSection: BenchSection = {
  name: 'cli-cpu',
  async run(context: BenchContext): Promise<Record<string, number>> {
    if (!existsSync(BINARY)) throw new Error(`${BINARY} is missing; run \`npm run build\` first`);
    const project = mkdtempSync(join(tmpdir(), 'e2e-bench-cli-cpu-'));
    try {
      symlinkSync(join(ROOT, 'node_modules'), join(project, 'node_modules'), 'dir');
      writeFileSync(join(project, 'playwright.config.mjs'), "export default { testDir: 'tests', testMatch: '**/*.e2e.ts', projects: [{ name: 'web' }] };\n");
      mkdirSync(join(project, 'tests'));
      writeFileSync(join(project, 'tests', 'checkout.e2e.ts'), "import { test } from '@playwright/test';\ntest('pays', async () => {});\n");
      const env: NodeJS.ProcessEnv = { ...context.env, NODE_OPTIONS: '', CI: 'true' };
      const e2e = (...args: string[]): string[] => [process.execPath, BINARY, ...args];
      const times = { node: [] as number[], version: [] as number[], ls: [] as number[], prune: [] as number[] };
      for (let round = 0; round < ROUNDS; round++) {
        times.node.push(cpuSeconds(project, env, [process.execPath, '-e', '']));
        times.version.push(cpuSeconds(project, env, e2e('--version')));
        // Alternate which goes first, so neither always runs on a cache the other just warmed.
        const pair = round % 2 === 0 ? (['ls', 'prune'] as const) : (['prune', 'ls'] as const);
        for (const which of pair) {
          times[which].push(cpuSeconds(project, env, which === 'ls' ? e2e('cache', 'ls', '--config', 'playwright.config.mjs') : e2e('cache', 'prune', '--dry-run', '--config', 'playwright.config.mjs')));
        }
        context.log(`cli-cpu: round ${round + 1}/${ROUNDS}`);
      }
      const node = median(times.node);
      const version = median(times.version);
      const ls = median(times.ls);
      const prune = median(times.prune);
      return {
        cli_start_cpu_ms: Math.round(version * 1000),
        cli_start_vs_node_ratio: node > 0 ? Math.round((version / node) * 100) / 100 : 0,
        cache_ls_cpu_ms: Math.round(ls * 1000),
        cache_prune_vs_ls_cpu_ratio: Math.round((prune / ls) * 100) / 100,
      };
    } finally {
      rmSync(project, { recursive: true, force: true });
    }
  },
};
