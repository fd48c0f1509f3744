/**
 * `npm run bench`: runs named sections, prints one table of every figure with its target
 * (DESIGN §10) and whether it was met, and merges the figures into `bench/results.json` (a
 * flat object of named numbers; keys of other sections are kept).
 * Add a section: export a {@link BenchSection} from `bench/<name>.ts` and list it below.
 * Run some only: `node --import tsx bench/run.ts observe agent`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** What a section gets: the environment (bench is an entry point and may read it). */
export interface BenchContext {
  env: Readonly<Record<string, string | undefined>>;
  /** Progress lines, shown while the bench runs. */
  log(line: string): void;
}

/** One named group of measurements. */
export interface BenchSection {
  name: string;
  /** Figures by key (`observe_ms_1k`); numbers only, so results.json stays a flat table. */
  run(context: BenchContext): Promise<Record<string, number>>;
}

/** A section by name, loaded when it runs, so one section's broken import cannot stop the others. */
interface SectionEntry {
  name: string;
  load(): Promise<BenchSection>;
}

/** Every section, in run order. */
const SECTIONS: SectionEntry[] = [
  { name: 'observe', load: async () => (await import('./observe.js')).observeSection },
  { name: 'agent', load: async () => (await import('./agent.js')).agentSection },
  { name: 'prompt', load: async () => (await import('./prompt.js')).promptSection },
  { name: 'cache', load: async () => (await import('./cache.js')).cacheSection },
  { name: 'cli-cache', load: async () => (await import('./cli-cache.js')).cliCacheSection },
  { name: 'cli-cpu', load: async () => (await import('./cli-cpu.js')).cliCpuSection },
  { name: 'replay', load: async () => (await import('./replay.js')).replaySection },
  { name: 'pages', load: async () => (await import('./pages.js')).pagesSection },
  { name: 'redact', load: async () => (await import('./redact.js')).redactSection },
  { name: 'audit', load: async () => (await import('./audit.js')).auditSection },
  { name: 'terminal', load: async () => (await import('./terminal.js')).terminalSection },
];

/** A goal a figure must meet; the first target whose `figure` matches a key applies to it. */
export interface BenchTarget {
  /** A figure's key, or a pattern over keys. */
  figure: string | RegExp;
  comparison: '<' | '<=';
  limit: number;
}

/** The goals of DESIGN §10. */
export const TARGETS: readonly BenchTarget[] = [
  { figure: 'observe_ms_1k', comparison: '<=', limit: 25 },
  { figure: 'observe_ms_10k', comparison: '<=', limit: 350 },
  // A list of 200,000 items (issue 34): `ctx.observe()` bounded, and the model-free replay of a step on it.
  { figure: 'observe_ms_200k', comparison: '<', limit: 1500 },
  { figure: 'replay_step_ms_200k', comparison: '<', limit: 2000 },
  { figure: 'observe_text_vs_html_ratio', comparison: '<=', limit: 0.7 },
  { figure: 'cache_lookup_ms_10k', comparison: '<', limit: 1 },
  { figure: 'agent_turn_overhead_ms', comparison: '<=', limit: 40 },
  // What every act request repeats (system + tools on the wire), and a whole TodoMVC step's input.
  { figure: 'agent_fixed_prompt_bytes', comparison: '<=', limit: 3000 },
  { figure: 'act_input_tokens_todomvc', comparison: '<=', limit: 6000 },
  { figure: 'replay_vs_playwright_ratio', comparison: '<=', limit: 1.3 },
  // One audit mutant's run vs one replay of the same test (issue 32): cheap enough to audit on every record.
  { figure: 'audit_vs_replay_ratio', comparison: '<=', limit: 1.2 },
  // `cache ls`/`diff`/`prune` and friends over 10,000 entries: a few seconds.
  { figure: /^cache_(?!lookup_).+_ms_10k$/, comparison: '<=', limit: 5000 },
  // `cache prune` lists the tests in the one Playwright listing that also reads the config (issue 31): about one `cache ls`.
  { figure: 'cache_prune_vs_ls_cpu_ratio', comparison: '<=', limit: 1.3 },
  // A 1 MiB text with a 64 KiB secret (a private key) in five renderings: well under a second, growing with the text.
  { figure: 'redact_ms_64k_secret', comparison: '<=', limit: 1000 },
  { figure: 'redact_growth_2x_text', comparison: '<=', limit: 3 },
];

/** The target of a figure, if it has one. */
export function targetOf(key: string): BenchTarget | undefined {
  return TARGETS.find((target) => (typeof target.figure === 'string' ? target.figure === key : target.figure.test(key)));
}

/** True when `value` meets `target`. */
export function meets(value: number, target: BenchTarget): boolean {
  return target.comparison === '<' ? value < target.limit : value <= target.limit;
}

const RESULTS = join(dirname(fileURLToPath(import.meta.url)), 'results.json');

/** Read results.json, or an empty object when it is missing or unreadable. */
async function readResults(): Promise<Record<string, number>> {
  try {
    const parsed: unknown = JSON.parse(await readFile(RESULTS, 'utf8'));
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
    return Object.fromEntries(Object.entries(parsed).filter((entry): entry is [string, number] => typeof entry[1] === 'number'));
  } catch {
    return {};
  }
}

function formatNumber(value: number): string {
  return Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) < 1 ? 3 : 2);
}

/**
 * One table of figures: value, target and `pass`/`FAIL` (blank without a target). Targets
 * named exactly but not measured are listed as `not measured` when `missing` is true.
 */
export function benchTable(figures: Record<string, number>, options: { missing: boolean }): { text: string; met: number; failed: string[]; unmeasured: string[] } {
  const rows: Array<[string, string, string, string]> = [];
  const failed: string[] = [];
  let met = 0;
  for (const [key, value] of Object.entries(figures)) {
    const target = targetOf(key);
    const status = target === undefined ? '' : meets(value, target) ? 'pass' : 'FAIL';
    if (status === 'pass') met++;
    if (status === 'FAIL') failed.push(key);
    rows.push([key, formatNumber(value), target === undefined ? '' : `${target.comparison} ${target.limit}`, status]);
  }
  const unmeasured = options.missing ? TARGETS.flatMap((target) => (typeof target.figure === 'string' && !(target.figure in figures) ? [target.figure] : [])) : [];
  for (const key of unmeasured) {
    const target = targetOf(key)!;
    rows.push([key, '—', `${target.comparison} ${target.limit}`, 'not measured']);
  }
  const header: [string, string, string, string] = ['figure', 'value', 'target', 'status'];
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (row: readonly string[]): string =>
    row
      .map((cell, column) => (column === 1 ? cell.padStart(widths[column]!) : cell.padEnd(widths[column]!)))
      .join('  ')
      .trimEnd();
  const text = [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
  return { text, met, failed, unmeasured };
}

/** What a bench run produced: figures, and the sections that failed with why. */
export interface BenchRun {
  figures: Record<string, number>;
  failures: Array<{ section: string; error: string }>;
}

/**
 * Run the selected sections (all when none is named) and merge their figures into
 * results.json. A failing section is reported and the others still run.
 */
export async function runBench(names: string[], context: BenchContext): Promise<BenchRun> {
  const unknown = names.filter((name) => !SECTIONS.some((section) => section.name === name));
  if (unknown.length > 0) throw new Error(`unknown bench section(s): ${unknown.join(', ')}; known: ${SECTIONS.map((section) => section.name).join(', ')}`);
  const selected = names.length === 0 ? SECTIONS : SECTIONS.filter((section) => names.includes(section.name));
  const figures: Record<string, number> = {};
  const failures: BenchRun['failures'] = [];
  for (const entry of selected) {
    const started = performance.now();
    context.log(`bench: ${entry.name}…`);
    try {
      const section = await entry.load();
      Object.assign(figures, await section.run(context));
      context.log(`bench: ${entry.name} done in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    } catch (error) {
      const message = error instanceof Error ? (error.stack ?? error.message) : String(error);
      failures.push({ section: entry.name, error: message });
      context.log(`bench: ${entry.name} failed: ${message}`);
    }
  }
  const merged = { ...(await readResults()), ...figures };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([left], [right]) => left.localeCompare(right)));
  await writeFile(RESULTS, JSON.stringify(sorted, null, 2) + '\n');
  return { figures, failures };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const log = (line: string): void => {
    process.stderr.write(line + '\n');
  };
  const names = process.argv.slice(2);
  runBench(names, { env: process.env, log }).then(
    ({ figures, failures }) => {
      const table = benchTable(figures, { missing: names.length === 0 });
      const targeted = table.met + table.failed.length;
      const notes = [
        `${table.met} of ${targeted} measured targets met`,
        ...(table.failed.length > 0 ? [`missed: ${table.failed.join(', ')}`] : []),
        ...(table.unmeasured.length > 0 ? [`not measured: ${table.unmeasured.join(', ')}`] : []),
        ...(failures.length > 0 ? [`sections failed: ${failures.map((failure) => failure.section).join(', ')}`] : []),
      ];
      process.stdout.write(`${table.text}\n\n${notes.join('; ')}.\n`);
      if (failures.length > 0) process.exitCode = 1;
    },
    (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
