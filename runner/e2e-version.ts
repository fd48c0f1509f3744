/**
 * This e2e's version, read once from the package.json above this module: the provenance of
 * recorded entries and what `e2e --version` prints. A module of its own so the CLI can print
 * it without loading the cache.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let toolVersion: string | undefined;

/** This e2e's version (provenance of recorded entries), from the package.json above this module. */
export function e2eVersion(): string {
  if (toolVersion !== undefined) return toolVersion;
  toolVersion = '0.0.0';
  for (let folder = dirname(fileURLToPath(import.meta.url)); ; folder = dirname(folder)) {
    try {
      const manifest = JSON.parse(readFileSync(join(folder, 'package.json'), 'utf8')) as { name?: unknown; version?: unknown };
      if (manifest.name === 'e2e' && typeof manifest.version === 'string') {
        toolVersion = manifest.version;
        break;
      }
    } catch {
      // No package.json here; look further up.
    }
    if (dirname(folder) === folder) break;
  }
  return toolVersion;
}
