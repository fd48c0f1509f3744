#!/usr/bin/env node
// Prints README's "Architecture" picture from the import table of scripts/check-imports.mjs:
// the folders in layers, top first, each with the folders it imports (imports point down).
import { layers, RULES } from './check-imports.mjs';

/** The picture as lines: one per folder, its layer, its name, the folders it may import. */
export function architectureLines() {
  const all = layers();
  const width = Math.max(...all.flat().map((folder) => folder.length)) + 1;
  const lines = [];
  for (let level = all.length - 1; level >= 0; level--) {
    for (const folder of all[level]) {
      const imports = RULES[folder].folders;
      const name = `${folder}/`.padEnd(width + 1);
      lines.push(`${String(level).padStart(2)}  ${name}${imports.length === 0 ? '(imports nothing)' : `→ ${imports.map((target) => `${target}/`).join(' ')}`}`.trimEnd());
    }
  }
  return lines;
}

if (process.argv[1] === new URL(import.meta.url).pathname) console.log(architectureLines().join('\n'));
