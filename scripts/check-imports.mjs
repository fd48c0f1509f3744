#!/usr/bin/env node
// Fails when a file imports against the design's dependency direction (README "Architecture").
// One table, no exceptions: a folder's tests obey its row too, plus the shared test support.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/**
 * Folder → the folders and packages (prefix match) its files may import. Node built-ins are
 * always allowed. `'*'` marks the cross-cutting folders (tests, goldens, bench, examples).
 */
export const RULES = {
  errors: { folders: [], packages: [] },
  contract: { folders: ['errors'], packages: [] },
  'cache-format': { folders: ['errors'], packages: ['msgpackr', 'xxhash-wasm', 'zod'] },
  semantics: { folders: ['errors', 'contract', 'cache-format'], packages: [] },
  secrets: { folders: ['errors', 'contract'], packages: [] },
  recorder: { folders: ['errors', 'contract', 'cache-format', 'semantics', 'secrets'], packages: ['zod'] },
  replayer: { folders: ['errors', 'contract', 'cache-format', 'semantics', 'secrets'], packages: ['zod'] },
  step: { folders: ['errors', 'contract', 'semantics', 'secrets'], packages: ['zod'] },
  executor: { folders: ['errors', 'contract', 'semantics', 'secrets', 'step'], packages: ['ai', '@ai-sdk/', 'zod'] },
  'step-cache': { folders: ['errors', 'contract', 'cache-format', 'semantics', 'secrets', 'recorder', 'replayer', 'step'], packages: [] },
  // The project's own Playwright, through the peer: one copy per project (engines/web/README.md).
  'engines/web': { folders: ['errors', 'contract', 'semantics'], packages: ['@playwright/test'] },
  runner: {
    folders: ['errors', 'contract', 'cache-format', 'semantics', 'secrets', 'recorder', 'replayer', 'step', 'executor', 'step-cache', 'engines/web'],
    packages: ['@playwright/test', 'zod', 'ai', '@ai-sdk/'],
  },
  cli: {
    folders: ['errors', 'contract', 'cache-format', 'semantics', 'secrets', 'recorder', 'replayer', 'step', 'executor', 'step-cache', 'engines/web', 'runner'],
    packages: ['commander', 'diff', '@playwright/test', 'zod'],
  },
  tests: '*',
  golden: '*',
  bench: '*',
  examples: '*',
  scripts: '*',
};

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

if (process.argv[1] === new URL(import.meta.url).pathname) {
  const problems = [];
  const tops = new Set(Object.keys(RULES).map((name) => name.split('/')[0]));
  for (const folder of tops) {
    let files;
    try {
      files = [...walk(join(root, folder))];
    } catch {
      continue;
    }
    for (const path of files) problems.push(...problemsOf(toPosix(path), readFileSync(path, 'utf8')));
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
