#!/usr/bin/env node
// Fails when a source file imports across the design's dependency direction (STYLE 2).
// cli → runner → agent → executor → {recorder, replayer} → cache-format; engines/* implement executor/engine.ts.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative, resolve, dirname, sep } from 'node:path';

const root = resolve(dirname(new URL(import.meta.url).pathname), '..');

/** Folder → internal folders it may import, and packages it may import (prefix match). */
const rules = {
  errors: { folders: [], packages: [] },
  contract: { folders: ['errors', 'executor'], packages: [] },
  'cache-format': { folders: ['errors', 'contract'], packages: ['msgpackr', 'xxhash-wasm', 'zod'] },
  recorder: { folders: ['errors', 'contract', 'cache-format', 'executor'], contractOnly: ['executor'], packages: ['zod'] },
  replayer: { folders: ['errors', 'contract', 'cache-format', 'executor', 'recorder'], contractOnly: ['executor'], packages: ['zod'] },
  executor: { folders: ['errors', 'contract', 'cache-format', 'recorder', 'replayer', 'step-cache'], packages: ['zod'] },
  'step-cache': { folders: ['errors', 'contract', 'cache-format', 'recorder', 'replayer', 'executor'], packages: [] },
  'engines/web': { folders: ['errors', 'contract', 'executor'], packages: ['playwright', 'playwright-core'] },
  agent: { folders: ['errors', 'contract', 'executor', 'cache-format'], packages: ['ai', '@ai-sdk/', 'zod'] },
  runner: {
    folders: ['errors', 'contract', 'cache-format', 'recorder', 'replayer', 'executor', 'step-cache', 'agent', 'engines/web'],
    packages: ['@playwright/test', 'playwright', 'zod', 'ai', '@ai-sdk/'],
  },
  cli: {
    folders: ['errors', 'contract', 'cache-format', 'recorder', 'replayer', 'executor', 'step-cache', 'agent', 'engines/web', 'runner'],
    packages: ['commander', 'diff', '@playwright/test', 'zod'],
  },
};
// recorder/ and replayer/ sit below executor/ but speak its contract: only these files.
const contractFiles = ['executor/screen-text.ts'];
// Executor, recorder, replayer and cache-format never say playwright (DESIGN §1).
const forbiddenEverywhereBut = { playwright: ['engines/web', 'runner', 'cli'] };

function folderOf(file) {
  const rel = relative(root, file).split(sep).join('/');
  return Object.keys(rules)
    .sort((a, b) => b.length - a.length)
    .find((folder) => rel === folder || rel.startsWith(folder + '/'));
}

function* walk(directory) {
  for (const name of readdirSync(directory)) {
    if (name === 'node_modules' || name === 'dist' || name === 'fixtures' || name.startsWith('.')) continue;
    const path = join(directory, name);
    if (statSync(path).isDirectory()) yield* walk(path);
    else if (/\.(ts|mts|js|mjs)$/.test(name) && !/\.test\.ts$/.test(name)) yield path;
  }
}

const importPattern = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
const problems = [];
for (const folder of Object.keys(rules)) {
  let files;
  try {
    files = [...walk(join(root, folder))];
  } catch {
    continue;
  }
  for (const file of files) {
    const own = folderOf(file);
    const rule = rules[own];
    const source = readFileSync(file, 'utf8');
    for (const match of source.matchAll(importPattern)) {
      const specifier = match[1] ?? match[2];
      if (specifier.startsWith('.')) {
        const target = folderOf(resolve(dirname(file), specifier));
        if (target === undefined || target === own) continue;
        const targetFile = relative(root, resolve(dirname(file), specifier)).split(sep).join('/').replace(/\.js$/, '.ts');
        if (rule.contractOnly?.includes(target) && !contractFiles.includes(targetFile)) {
          problems.push(`${relative(root, file)}: may import only the contract files of ${target}/ (${contractFiles.join(', ')}), not ${targetFile}`);
          continue;
        }
        if (!rule.folders.includes(target)) problems.push(`${relative(root, file)}: imports ${target}/ (allowed: ${rule.folders.join(', ') || 'none'})`);
      } else if (specifier.startsWith('node:')) {
        continue;
      } else {
        const allowed = rule.packages.some((prefix) => specifier === prefix || specifier.startsWith(prefix.endsWith('/') ? prefix : prefix + '/'));
        if (!allowed) problems.push(`${relative(root, file)}: imports package ${specifier} (allowed: ${rule.packages.join(', ') || 'none'})`);
        for (const [name, owners] of Object.entries(forbiddenEverywhereBut)) {
          if (specifier.includes(name) && !owners.includes(own)) problems.push(`${relative(root, file)}: ${own}/ must not import ${specifier}`);
        }
      }
    }
  }
}
if (problems.length > 0) {
  console.error(`Import direction check failed (${problems.length}):\n` + problems.map((line) => '  ' + line).join('\n'));
  process.exit(1);
}
console.log('Import direction check passed.');
