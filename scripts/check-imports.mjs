#!/usr/bin/env node
// Fails when a file imports against the design's dependency direction (README "Architecture").
// One table, no exceptions: a folder's tests obey its row too, plus the shared test support.
// Also fails when code outside the run request's reader names the variables that carried the run's mode,
// and when a module redacts on its own, outside the boundaries of the REDACTION table.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/**
 * Folder → the folders and packages (prefix match) its files may import, and only what they
 * do import (`node scripts/check-imports.mjs --unused` lists allowances nothing uses). Node
 * built-ins are always allowed. `'*'` marks the cross-cutting folders (tests, goldens, bench,
 * examples). README's "Architecture" list is printed from it (`scripts/architecture.mjs`).
 */
export const RULES = {
  errors: { folders: [], packages: [] },
  contract: { folders: ['errors'], packages: [] },
  'cache-format': { folders: ['errors'], packages: ['msgpackr', 'xxhash-wasm', 'zod'] },
  semantics: { folders: ['contract', 'cache-format'], packages: [] },
  secrets: { folders: ['errors', 'contract'], packages: [] },
  recorder: { folders: ['contract', 'cache-format', 'semantics'], packages: ['zod'] },
  replayer: { folders: ['errors', 'contract', 'cache-format', 'semantics'], packages: [] },
  step: { folders: ['errors', 'contract', 'semantics', 'secrets'], packages: ['zod'] },
  executor: { folders: ['errors', 'contract', 'step'], packages: ['ai', '@ai-sdk/', 'zod'] },
  'step-cache': { folders: ['errors', 'contract', 'cache-format', 'semantics', 'recorder', 'replayer'], packages: [] },
  // The project's own Playwright, through the peer: one copy per project (engines/web/README.md).
  'engines/web': { folders: ['errors', 'contract', 'semantics'], packages: ['@playwright/test'] },
  // A program in a pseudo-terminal, drawn by a headless emulator (engines/terminal/README.md).
  'engines/terminal': { folders: ['errors', 'contract'], packages: ['@lydell/node-pty', '@xterm/headless', 'zod'] },
  // The cache review tools behind `e2e cache …`: they read caches (folders, git revisions), never run a test.
  review: { folders: ['errors', 'contract', 'cache-format', 'semantics'], packages: ['diff'] },
  // The Playwright Test host: engines reach it only through contract/ (the host delegate, DESIGN §8).
  runner: {
    folders: ['errors', 'contract', 'cache-format', 'semantics', 'secrets', 'step', 'executor', 'step-cache'],
    packages: ['@playwright/test', 'zod'],
  },
  // The engine conformance suite (`e2e/conformance`): the contract, and the cache through the runner's wiring.
  conformance: { folders: ['errors', 'contract', 'cache-format', 'secrets', 'step', 'runner'], packages: [] },
  // The `e2e` package entry: the runner's test API beside the built-in web engine.
  api: { folders: ['errors', 'contract', 'runner', 'engines/web'], packages: [] },
  // Running Playwright Test on the user's project from the outside: config, child process, report.
  launch: { folders: ['errors', 'cache-format', 'runner'], packages: ['zod'] },
  // `e2e cache audit` and `e2e record --audit`: plans mutants, runs them through launch/, judges, scores, amends.
  audit: { folders: ['errors', 'contract', 'cache-format', 'semantics', 'review', 'runner', 'launch'], packages: [] },
  cli: {
    folders: ['errors', 'cache-format', 'semantics', 'review', 'runner', 'launch', 'audit'],
    packages: ['commander'],
  },
  tests: '*',
  golden: '*',
  bench: '*',
  examples: '*',
  scripts: '*',
};

/**
 * The run's mode travels in one versioned run request (runner/run-request.ts). The variables
 * that once carried it may be named only by that request's compatibility reader (plain
 * `npx playwright test`: `E2E_REPLAY=1`, `E2E_CACHE_MODE`), and the reader only by the runner
 * entry and the pure config; the CLI's own help may show the documented command. Tests are
 * free to set them. Gone variables are named nowhere.
 */
export const MODE_VARIABLES = {
  pattern: /\bE2E_(?:CACHE_MODE|CACHE_STRICT|REPLAY|PROPOSE_DIR|DEBUG|REPORT_FILE|FAILURE_FILE|CONFIG_PROBE_FILE|PARENT_PIPE_FD|AUDIT_PLAN)\b/,
  /** Files that may name a mode variable, and why. */
  namedBy: {
    'runner/run-request.ts': 'the compatibility reader',
    'cli/init-templates.ts': 'the documented `E2E_REPLAY=1 npx playwright test` command, as text',
  },
  /** What reads the variables into a request, and the files that may use it. */
  readers: /\b(?:requestFromVariables|REPLAY_VARIABLE|CACHE_MODE_VARIABLE)\b/,
  readBy: {
    'runner/run-request.ts': 'defines them',
    'runner/environment.ts': 'the runner entry: reads the request once per process',
    'runner/config.ts': 'resolveConfig takes the request, by default the one the variables make',
    'runner/environment-hints.ts': 'names them among the variables e2e reads, for did-you-mean hints',
    'launch/run-command.ts': '`e2e run` without a mode flag honours what plain Playwright would',
  },
};

/** A file's problems with the mode variables (a beside-code test or a file under tests/ has none). */
export function modeVariableProblems(file, source) {
  if (/\.test\.ts$/.test(file) || file.startsWith('tests/') || file === 'scripts/check-imports.mjs') return [];
  const problems = [];
  const named = MODE_VARIABLES.pattern.exec(source);
  if (named !== null && MODE_VARIABLES.namedBy[file] === undefined) {
    problems.push(`${file}: names ${named[0]}; the run's mode comes from the run request (runner/run-request.ts), not from the environment`);
  }
  const reader = MODE_VARIABLES.readers.exec(source);
  if (reader !== null && MODE_VARIABLES.readBy[file] === undefined) {
    problems.push(`${file}: uses ${reader[0]}; only ${Object.keys(MODE_VARIABLES.readBy).join(', ')} turn the environment into a run request`);
  }
  return problems;
}

/**
 * Redaction (DESIGN §9) happens at a boundary, never in a module on its own: a record leaving
 * the attempt (report, what the test gets back, transcript, console line, cache entry) passes
 * `secrets/outbound.ts` once; what the model is shown is cleaned where it is made, before it
 * leaves for the executor; what enters a cache key is cleaned as it enters; Playwright's own
 * output is cleaned across processes. Only these files may call a redactor, each for the
 * boundary it names (tests and the bench are free).
 */
export const REDACTION = {
  pattern: /\.redact\(|\bredactDeep\(|\bcreateSecretRedactor\(|\bredactInPlace\(|\bcleanedCause\(/,
  by: {
    'secrets/redactor.ts': 'the redactor itself',
    'secrets/vault.ts': "the attempt's secrets, and a secret's purpose as it is shown",
    'secrets/outbound.ts': "the attempt's way out: report, test, transcript, console, cache entry",
    'errors/index.ts': 'cleanedCause: the copy of an error a boundary hands on',
    'runner/agent-api.ts': 'the way out to the test, through runner.outbound',
    'runner/fixtures.ts': "the way out to the test for an engine that did not start (outbound); the vault the cache keys with",
    'runner/redacting-reporter.ts': "Playwright's own results, in the main process",
    'runner/environment.ts': "the process's stdout and stderr",
    'step/attempt-state.ts': "the vault's face for the attempt; what a verification looked at, as it enters the cache",
    'step/step-context.ts': "ctx.redact: an executor's model-bound text",
    'step/step-pipeline.ts': "hands ctx.redact to the step's policed actions",
    'step/screen-observer.ts': 'model-bound: observations',
    'step/screen-text.ts': 'model-bound: the screen as text',
    'step/screen-budget.ts': 'model-bound: a bounded screen as text',
    'step/policed-scope.ts': 'model-bound: what a policed action tells the executor',
    'step/perform-policed.ts': 'model-bound: an action that failed',
    'step/verb-policies.ts': 'model-bound: a refused navigation',
    'step/verb-call.ts': "model-bound: a tool call's arguments",
    'step/instruction.ts': "a secret's value written into an instruction or a plain param, read as <secret:name> as it enters the step (before any executor, key or record holds it)",
    'step-cache/cache-key.ts': 'key parts, as they enter a key',
    'executor/tool-loop.ts': 'model-bound: tool results and errors',
    'executor/define-tool.ts': "model-bound: a user tool's output",
    'executor/decision-executor.ts': 'model-bound: outcomes in the history',
    'executor/judgments.ts': 'model-bound: provider errors',
  },
};

/** A file's problems with redaction: a call of a redactor outside the boundaries of {@link REDACTION}. */
export function redactionProblems(file, source) {
  if (/\.test\.ts$/.test(file) || file.startsWith('tests/') || file.startsWith('bench/') || file === 'scripts/check-imports.mjs') return [];
  const call = REDACTION.pattern.exec(source);
  if (call === null || REDACTION.by[file] !== undefined) return [];
  return [`${file}: redacts on its own (${call[0]}); let the text leave by the attempt's outbound boundary (secrets/outbound.ts), or name the boundary this file is in REDACTION`];
}

/**
 * The role vocabulary has one home per platform (issue 33): the role groups the core gives
 * meaning to live in `contract/roles.ts`; an engine maps its platform into those names in its
 * own home. A set of two or more ARIA role names written anywhere else is a second list that
 * drifts from the first.
 */
export const ROLE_VOCABULARY = {
  homes: {
    'contract/roles.ts': 'the core\'s role groups',
    'engines/web/page-semantics.ts': 'the web: HTML and ARIA to roles, inside the page (its source is sent to the browser, so it imports nothing)',
    'engines/terminal/screen-locator.ts': 'the terminal: which of its controls a label names (getByLabel on a terminal screen)',
  },
  /** Role names that mark a literal set as a role list. */
  roles: new Set(['button', 'link', 'textbox', 'searchbox', 'combobox', 'spinbutton', 'checkbox', 'radio', 'switch', 'slider', 'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'treeitem', 'row', 'listitem', 'dialog', 'alertdialog', 'alert', 'status', 'log', 'timer', 'marquee', 'progressbar', 'meter', 'region', 'complementary', 'navigation', 'banner', 'main', 'contentinfo', 'form', 'group', 'radiogroup', 'list', 'table', 'grid', 'treegrid', 'tree', 'menu', 'menubar', 'tablist', 'tabpanel', 'toolbar', 'article', 'gridcell', 'heading']),
};

/** A literal `new Set([...])` of two or more role names outside the homes of the role vocabulary. */
export function roleVocabularyProblems(file, source) {
  if (/\.test\.ts$/.test(file) || file.startsWith('tests/') || file.startsWith('bench/') || file.startsWith('examples/') || file.startsWith('scripts/') || file.startsWith('golden/')) return [];
  if (ROLE_VOCABULARY.homes[file] !== undefined) return [];
  const problems = [];
  for (const literal of source.matchAll(/new Set(?:<[^>]*>)?\(\[([^\]]*)\]/g)) {
    const names = [...literal[1].matchAll(/'([a-z]+)'/g)].map((match) => match[1]).filter((name) => ROLE_VOCABULARY.roles.has(name));
    const words = [...literal[1].matchAll(/'([^']*)'/g)].length;
    // A set of words that happens to hold a role name or two (common words) is no role list.
    if (names.length >= 2 && names.length * 2 >= words) problems.push(`${file}: a role list of its own (${names.slice(0, 4).join(', ')}${names.length > 4 ? ', …' : ''}); use the role groups of contract/roles.ts, or name this platform's home in ROLE_VOCABULARY`);
  }
  return problems;
}

/** What a beside-code test may import on top of its folder's row. */
const TEST_EXTRAS = { folders: ['tests/support'], packages: ['vitest', 'fast-check'] };
/** Packages named only in the engines and the Playwright host (DESIGN §1). */
const PLAYWRIGHT_OWNERS = ['engines/web', 'runner', 'cli'];

const folders = Object.keys(RULES).sort((a, b) => b.length - a.length);
const toPosix = (path) => relative(root, path).split(sep).join('/');
const within = (path, folder) => path === folder || path.startsWith(folder + '/');
const folderOf = (path) => folders.find((folder) => within(path, folder));

function* walk(directory) {
  for (const name of readdirSync(directory)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(directory, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name)) yield path;
  }
}

function allowsPackage(prefixes, specifier) {
  return prefixes.some((prefix) => specifier === prefix || specifier.startsWith(prefix.endsWith('/') ? prefix : prefix + '/'));
}

/** The problems of one file's imports, as lines for the report. */
export function problemsOf(file, source) {
  const own = folderOf(file);
  if (own === undefined) return [`${file}: is in no folder of the import table in scripts/check-imports.mjs; add its folder there`];
  const rule = RULES[own];
  if (rule === '*') return [];
  const test = /\.test\.ts$/.test(file);
  const allowedFolders = test ? [...rule.folders, ...TEST_EXTRAS.folders] : rule.folders;
  const allowedPackages = test ? [...rule.packages, ...TEST_EXTRAS.packages] : rule.packages;
  const problems = [];
  const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of source.matchAll(importPattern)) {
    const specifier = match[1] ?? match[2];
    if (specifier.startsWith('.')) {
      const target = toPosix(resolve(root, dirname(file), specifier));
      if (within(target, own)) continue;
      if (allowedFolders.some((folder) => within(target, folder))) continue;
      problems.push(`${file}: imports ${target} (${own}/ may import: ${rule.folders.join(', ') || 'nothing'}${test ? ', and tests/support' : ''})`);
    } else if (!specifier.startsWith('node:')) {
      if (!allowsPackage(allowedPackages, specifier)) problems.push(`${file}: imports package ${specifier} (${own}/ may import: ${allowedPackages.join(', ') || 'none'})`);
      else if (specifier.includes('playwright') && !PLAYWRIGHT_OWNERS.includes(own)) problems.push(`${file}: ${own}/ must not import ${specifier}`);
    }
  }
  return problems;
}

/** Every checked file of the repository, as repository-relative paths with their sources. */
export function* checkedFiles() {
  for (const folder of new Set(Object.keys(RULES).map((name) => name.split('/')[0]))) {
    let files;
    try {
      files = [...walk(join(root, folder))];
    } catch {
      continue;
    }
    for (const path of files) yield { file: toPosix(path), source: readFileSync(path, 'utf8') };
  }
}

/** What the folders of the table import: folder → { folders, packages } actually named (non-test files and tests alike). */
export function importsInUse() {
  const used = Object.fromEntries(Object.keys(RULES).map((folder) => [folder, { folders: new Set(), packages: new Set() }]));
  const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const { file, source } of checkedFiles()) {
    const own = folderOf(file);
    if (own === undefined || RULES[own] === '*') continue;
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith('.')) {
        const target = toPosix(resolve(root, dirname(file), specifier));
        const folder = folders.find((candidate) => within(target, candidate));
        if (folder !== undefined && folder !== own) used[own].folders.add(folder);
      } else if (!specifier.startsWith('node:')) {
        const prefix = RULES[own].packages.find((candidate) => allowsPackage([candidate], specifier)) ?? TEST_EXTRAS.packages.find((candidate) => allowsPackage([candidate], specifier));
        if (prefix !== undefined) used[own].packages.add(prefix);
      }
    }
  }
  return used;
}

/** Allowances of the table that no file uses, as report lines. */
export function unusedAllowances() {
  const used = importsInUse();
  const lines = [];
  for (const [folder, rule] of Object.entries(RULES)) {
    if (rule === '*') continue;
    for (const allowed of rule.folders) if (!used[folder].folders.has(allowed)) lines.push(`${folder}/ may import ${allowed}/ but does not`);
    for (const allowed of rule.packages) if (!used[folder].packages.has(allowed)) lines.push(`${folder}/ may import package ${allowed} but does not`);
  }
  return lines;
}

/**
 * The layers of the table, bottom first: a folder sits one above the highest folder it may
 * import. This is README's "Architecture" picture (`node scripts/architecture.mjs`).
 */
export function layers() {
  const depth = {};
  const depthOf = (folder) => {
    if (depth[folder] !== undefined) return depth[folder];
    const rule = RULES[folder];
    depth[folder] = rule === '*' ? -1 : rule.folders.length === 0 ? 0 : 1 + Math.max(...rule.folders.map(depthOf));
    return depth[folder];
  };
  const result = [];
  for (const folder of Object.keys(RULES)) {
    const level = depthOf(folder);
    if (level >= 0) (result[level] ??= []).push(folder);
  }
  return result;
}

if (process.argv[1] === new URL(import.meta.url).pathname && process.argv.includes('--unused')) {
  const lines = unusedAllowances();
  console.log(lines.length === 0 ? 'Every allowance of the import table is used.' : lines.join('\n'));
  process.exit(lines.length === 0 ? 0 : 1);
}

if (process.argv[1] === new URL(import.meta.url).pathname && !process.argv.includes('--unused')) {
  const problems = [];
  const tops = new Set(Object.keys(RULES).map((name) => name.split('/')[0]));
  for (const folder of tops) {
    let files;
    try {
      files = [...walk(join(root, folder))];
    } catch {
      continue;
    }
    for (const path of files) {
      const source = readFileSync(path, 'utf8');
      problems.push(...problemsOf(toPosix(path), source), ...modeVariableProblems(toPosix(path), source), ...redactionProblems(toPosix(path), source), ...roleVocabularyProblems(toPosix(path), source));
    }
  }
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.') || !statSync(path).isDirectory() || tops.has(name)) continue;
    if ([...walk(path)].length > 0) problems.push(`${name}/: holds code but has no row in the import table in scripts/check-imports.mjs`);
  }
  if (problems.length > 0) {
    console.error(`Import direction check failed (${problems.length}):\n` + problems.map((line) => '  ' + line).join('\n'));
    process.exit(1);
  }
  console.log('Import direction check passed.');
}
