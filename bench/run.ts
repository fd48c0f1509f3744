/**
 * `npm run bench`: runs named sections, prints one table of figures, and merges them into
 * `bench/results.json` (a flat object of named numbers; keys of other sections are kept).
 * Add a section: export a {@link BenchSection} from `bench/<name>.ts` and list it below.
 * Run some only: `node --import tsx bench/run.ts observe`.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { observeSection } from './observe.js';

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

/** Every section, in run order. */
const SECTIONS: BenchSection[] = [observeSection];

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

/** Render figures as an aligned two-column table. */
function table(figures: Array<[string, number]>): string {
  const width = Math.max(...figures.map(([key]) => key.length), 6);
  const format = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(Math.abs(value) < 1 ? 3 : 2));
  return [`${'figure'.padEnd(width)}  value`, `${'-'.repeat(width)}  -----`, ...figures.map(([key, value]) => `${key.padEnd(width)}  ${format(value)}`)].join('\n');
}

/** Run the selected sections (all when none is named) and record their figures. */
export async function runBench(names: string[], context: BenchContext): Promise<Record<string, number>> {
  const unknown = names.filter((name) => !SECTIONS.some((section) => section.name === name));
  if (unknown.length > 0) throw new Error(`unknown bench section(s): ${unknown.join(', ')}; known: ${SECTIONS.map((section) => section.name).join(', ')}`);
  const selected = names.length === 0 ? SECTIONS : SECTIONS.filter((section) => names.includes(section.name));
  const figures: Record<string, number> = {};
  for (const section of selected) {
    context.log(`bench: ${section.name}…`);
    Object.assign(figures, await section.run(context));
  }
  const merged = { ...(await readResults()), ...figures };
  const sorted = Object.fromEntries(Object.entries(merged).sort(([left], [right]) => left.localeCompare(right)));
  await writeFile(RESULTS, JSON.stringify(sorted, null, 2) + '\n');
  return figures;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const log = (line: string): void => {
    process.stderr.write(line + '\n');
  };
  runBench(process.argv.slice(2), { env: process.env, log }).then(
    (figures) => process.stdout.write(table(Object.entries(figures)) + '\n'),
    (error: unknown) => {
      process.stderr.write(`bench failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
