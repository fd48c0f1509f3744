/**
 * The current test inventory for `e2e cache prune`: every test and the project it runs in,
 * from Playwright's list mode (`test --list --reporter=json`), with each test's cache test id
 * (`formatTestId`: file relative to the config's folder + title path). A listing with errors
 * (a test file that does not load) is refused: an incomplete inventory would make reachable
 * entries look unreachable.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { formatTestId } from '../cache-format/test-id.js';
import { E2EError } from '../errors/index.js';
import { configFoldersOf, prepareConfigProbe, runPlaywrightQuietly, type ConfigFolders } from './project-config.js';
import { loadableConfig } from './plain-config.js';

/** One test of one project. */
export interface InventoryTest {
  /** The cache test id (`tests/todos.e2e.ts::todos › adds`). */
  testId: string;
  /** The Playwright project (an e2e target). */
  project: string;
  /** File relative to the config's folder, `/` separators. */
  file: string;
  /** Describe titles, then the test title. */
  titlePath: string[];
}

/** Every current test. */
export interface TestInventory {
  tests: InventoryTest[];
}

/** The current tests, and the config's folders the same listing probed (undefined when the probe wrote nothing readable). */
export interface ListedInventory extends TestInventory {
  folders: ConfigFolders | undefined;
}

interface ListedSpec {
  title: string;
  file: string;
  tests: Array<{ projectName: string }>;
}
interface ListedSuite {
  title: string;
  specs?: ListedSpec[] | undefined;
  suites?: ListedSuite[] | undefined;
}

const specSchema = z.object({ title: z.string(), file: z.string(), tests: z.array(z.object({ projectName: z.string() })) });
const suiteSchema: z.ZodType<ListedSuite> = z.lazy(() =>
  z.object({ title: z.string(), specs: z.array(specSchema).optional(), suites: z.array(suiteSchema).optional() }),
);
const listSchema = z.object({
  config: z.object({ configFile: z.string().optional(), rootDir: z.string() }),
  suites: z.array(suiteSchema),
  errors: z.array(z.object({ message: z.string().optional() })).optional(),
});

/**
 * The inventory from a Playwright JSON report in list mode. File paths in the report are
 * relative to its `rootDir`; test ids take them relative to the config's folder.
 */
export function inventoryFromPlaywrightList(report: unknown): TestInventory {
  const parsed = listSchema.safeParse(report);
  if (!parsed.success) throw new E2EError('INVALID_CONFIG', 'Playwright\'s test list has an unexpected shape; check that @playwright/test is installed in a supported version.');
  const { config, suites, errors } = parsed.data;
  if (errors !== undefined && errors.length > 0) {
    const first = (errors[0]?.message ?? 'unknown error').split('\n')[0];
    throw new E2EError('INVALID_CONFIG', `Playwright could not list every test (${first}); fix that first, since an incomplete list would prune reachable entries.`);
  }
  const configFolder = config.configFile === undefined ? config.rootDir : dirname(config.configFile);
  const tests: InventoryTest[] = [];
  const visit = (suite: ListedSuite, titles: string[]): void => {
    for (const spec of suite.specs ?? []) {
      const file = relative(configFolder, resolve(config.rootDir, spec.file)).split('\\').join('/');
      const titlePath = [...titles, spec.title];
      for (const test of spec.tests) tests.push({ testId: formatTestId(file, titlePath), project: test.projectName, file, titlePath });
    }
    for (const child of suite.suites ?? []) visit(child, [...titles, child.title]);
  };
  // Top-level suites are files: their title is the path, not part of the title path.
  for (const fileSuite of suites) visit(fileSuite, []);
  return { tests };
}

/** Options of {@link listTestInventory}. */
export interface ListInventoryOptions {
  /** The config file (an e2e or Playwright config). */
  configPath: string;
  cwd: string;
  env: Readonly<Record<string, string | undefined>>;
}

/**
 * Lists the current tests with Playwright (`test --list --reporter=json -c <config>`). The
 * config probe reporter rides along, so the same listing also says where the config keeps its
 * cache (`cache prune` loads the config once, not twice).
 */
export async function listTestInventory(options: ListInventoryOptions): Promise<ListedInventory> {
  const folder = await mkdtemp(join(tmpdir(), 'e2e-inventory-'));
  const output = join(folder, 'list.json');
  const loadable = await loadableConfig(options.configPath);
  const probe = await prepareConfigProbe();
  // Playwright splits --reporter at commas: a reporter path holding one cannot ride along (prune then probes on its own).
  const reporters = probe.reporter.includes(',') ? 'json' : `json,${probe.reporter}`;
  try {
    const { code, stderr } = await runPlaywrightQuietly(options.configPath, ['test', '--list', `--reporter=${reporters}`, '-c', loadable.path], {
      cwd: options.cwd,
      env: { ...options.env, ...probe.variables, PLAYWRIGHT_JSON_OUTPUT_FILE: output },
    });
    let report: unknown;
    try {
      report = JSON.parse(await readFile(output, 'utf8'));
    } catch {
      const reason = stderr.trim().split('\n')[0] ?? `exit ${code}`;
      throw new E2EError('INVALID_CONFIG', `Playwright could not list the tests of ${options.configPath} (${reason}); run \`npx playwright test --list -c ${options.configPath}\` to see why.`);
    }
    const inventory = inventoryFromPlaywrightList(report);
    const folders = await probe.read().then(configFoldersOf, () => undefined);
    return { ...inventory, folders };
  } finally {
    await loadable.dispose();
    await probe.dispose();
    await rm(folder, { recursive: true, force: true });
  }
}
