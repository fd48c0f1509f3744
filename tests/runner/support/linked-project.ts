/**
 * A fresh project folder outside the repository, set up the way an installed e2e would be: its
 * node_modules holds links to this repository's packages, and `e2e` links to this repository.
 */
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './build.js';

/** A new temp folder named after `name`, with linked node_modules and an ESM package.json; returns its path. */
export function linkedProject(name: string): string {
  const project = mkdtempSync(join(tmpdir(), `e2e-${name}-`));
  const modules = join(project, 'node_modules');
  mkdirSync(modules);
  for (const entry of readdirSync(join(ROOT, 'node_modules'))) if (entry !== '.bin' && entry !== 'e2e') symlinkSync(join(ROOT, 'node_modules', entry), join(modules, entry), 'dir');
  symlinkSync(ROOT, join(modules, 'e2e'), 'dir');
  writeFileSync(join(project, 'package.json'), `{ "name": "${name}-project", "private": true, "type": "module" }\n`);
  return project;
}
