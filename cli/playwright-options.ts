/**
 * The Playwright Test options that `e2e record`, `e2e replay` and `e2e run` accept as they
 * are and hand on to `playwright test`, spelled as Playwright spells them (flags and value
 * shape; `tests/cli/playwright-options.process.test.ts` compares them with the installed
 * `playwright test --help`). Three of Playwright's options are e2e's own: `-c, --config`
 * (the same meaning), `--reporter` (e2e's report is always added) and `--debug` (e2e's debug
 * output; Playwright's Inspector is `-- --debug` or `PWDEBUG=1`).
 */
import { InvalidArgumentError, Option } from 'commander';

/** The shape of a numeric option's value; anything else is a usage error (exit 2), not a run. */
type ValueShape = 'count' | 'milliseconds' | 'workers' | 'port' | 'shard';

/** One option: commander flags, a short description, and the shape its value must have. */
interface OptionSpec {
  flags: string;
  description: string;
  value?: ValueShape;
}

const WHOLE = /^\d+$/;

/** Check `text` against `shape`; the value goes on to Playwright as it was given. */
function checkValue(shape: ValueShape, text: string): string {
  const fail = (expected: string): never => {
    throw new InvalidArgumentError(`Expected ${expected}.`);
  };
  switch (shape) {
    case 'count':
      return WHOLE.test(text) ? text : fail('a whole number, 0 or more');
    case 'milliseconds':
      return WHOLE.test(text) ? text : fail('milliseconds, a whole number, 0 or more');
    case 'workers':
      return /^[1-9]\d*%?$/.test(text) ? text : fail('a number of workers, 1 or more, or a percentage of the cores such as 50%');
    case 'port':
      return WHOLE.test(text) && Number(text) <= 65_535 ? text : fail('a port, 0 to 65535');
    case 'shard': {
      const [current, total] = text.split('/').map(Number);
      const valid = /^\d+\/\d+$/.test(text) && current !== undefined && total !== undefined && current >= 1 && current <= total;
      return valid ? text : fail('current/all with 1 ≤ current ≤ all, e.g. 1/4');
    }
  }
}

const SPECS: readonly OptionSpec[] = [
  { flags: '--add-reporter <reporter>', description: 'Playwright reporters to add to the configured ones (comma-separated)' },
  { flags: '--browser <browser>', description: 'all, chromium, firefox or webkit' },
  { flags: '--fail-on-flaky-tests', description: 'fail the run when a test is flaky' },
  { flags: '--forbid-only', description: 'fail the run when a test.only is left in' },
  { flags: '--fully-parallel', description: 'run every test in parallel' },
  { flags: '-g, --grep <grep>', description: 'only tests whose title matches this regular expression' },
  { flags: '-G, --grep-invert <grep>', description: 'only tests whose title does not match this regular expression' },
  { flags: '--global-timeout <timeout>', description: 'the whole run in milliseconds (default: unlimited)', value: 'milliseconds' },
  { flags: '--headed', description: 'show the browser' },
  { flags: '--ignore-snapshots', description: 'skip screenshot and snapshot expectations' },
  { flags: '-j, --workers <workers>', description: 'parallel workers, or a percentage of the cores', value: 'workers' },
  { flags: '--last-failed', description: 'only the tests that failed last time' },
  { flags: '--last-failed-file <file>', description: 'where the last run is noted (default: <outputDir>/.last-run.json)' },
  { flags: '--list', description: 'list the tests without running them (.e2e/ stays as it was)' },
  { flags: '--max-failures <N>', description: 'stop after N failures', value: 'count' },
  { flags: '--no-deps', description: 'skip project dependencies' },
  { flags: '--only-changed [ref]', description: "only test files changed since git's ref (default: uncommitted changes)" },
  { flags: '--output <dir>', description: 'folder for test artifacts (default: .e2e/test-results)' },
  { flags: '--pass-with-no-tests', description: 'succeed when no test is found' },
  { flags: '--project <project-name...>', description: "only these targets' projects ('*' wildcards)" },
  { flags: '--quiet', description: "suppress the tests' stdio" },
  { flags: '--repeat-each <N>', description: 'run each test N times', value: 'count' },
  { flags: '--retries <retries>', description: 'retries of a failed test (a read-only run replays again, a read-write run records again)', value: 'count' },
  { flags: '--run-agents <mode>', description: "Playwright's own agents for page.perform: missing, all or none" },
  { flags: '--shard <shard>', description: 'run one shard, current/all, e.g. 1/4', value: 'shard' },
  { flags: '--shuffle [seed]', description: 'run in a random order; a seed repeats an order' },
  { flags: '--test-list <file>', description: 'only the tests listed in this file' },
  { flags: '--test-list-invert <file>', description: 'skip the tests listed in this file' },
  { flags: '--timeout <timeout>', description: 'test timeout in milliseconds, 0 for none (default: 120000)', value: 'milliseconds' },
  { flags: '--trace <mode>', description: 'on, off, on-first-retry, on-all-retries, retain-on-failure, …' },
  { flags: '--tsconfig <path>', description: 'one tsconfig for every imported file' },
  { flags: '-u, --update-snapshots [mode]', description: 'update snapshots: all, changed, missing, none' },
  { flags: '--ui', description: "Playwright's UI mode" },
  { flags: '--ui-host <host>', description: 'serve UI mode on this host' },
  { flags: '--ui-port <port>', description: 'serve UI mode on this port (0: any free port)', value: 'port' },
  { flags: '--update-source-method <method>', description: 'overwrite, 3way or patch' },
  { flags: '-x', description: 'stop after the first failure' },
];

/** Playwright Test's options that e2e defines itself, with why. */
export const OWN_OPTIONS: Readonly<Record<string, string>> = {
  '--config': 'the same meaning; e2e finds e2e.config.* by default',
  '--reporter': "passed on with e2e's reporter added",
  '--debug': "e2e's debug output; Playwright's Inspector is `-- --debug` or PWDEBUG=1",
  '--help': "e2e's help",
};

/** Fresh commander options for one command (commander options belong to one command). */
export function playwrightOptions(): Option[] {
  return SPECS.map((spec) => {
    const option = new Option(spec.flags, spec.description);
    const shape = spec.value;
    return shape === undefined ? option : option.argParser((text: string) => checkValue(shape, text));
  });
}

/**
 * The `playwright test` arguments for the values commander parsed for `options`, in table
 * order. Values go as `--flag=value`, so a variadic option (`--project`) never swallows what
 * follows it.
 */
export function playwrightArgumentsOf(options: readonly Option[], values: Readonly<Record<string, unknown>>): string[] {
  const args: string[] = [];
  for (const option of options) {
    const value = values[option.attributeName()];
    const flag = option.long ?? option.short!;
    if (option.negate) {
      if (value === false) args.push(flag);
      continue;
    }
    if (value === undefined || value === false) continue;
    if (value === true) args.push(flag);
    else for (const item of Array.isArray(value) ? value : [value]) args.push(option.long === undefined ? `${flag}${String(item)}` : `${flag}=${String(item)}`);
  }
  return args;
}
