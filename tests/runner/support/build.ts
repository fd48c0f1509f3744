/**
 * Fixture projects import `e2e`, which resolves by package self-reference to `dist/`. This
 * builds `dist/` once when it is missing or older than the sources (`npm test` builds first,
 * so there this is a quick check). Test files run in parallel, so a lock folder keeps two
 * builds from writing `dist/` at once.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../..', import.meta.url));

/** The folders `npm run build` compiles: tsconfig.build.json's own list, so a new folder is never missed. */
const SOURCE_FOLDERS = (JSON.parse(readFileSync(join(ROOT, 'tsconfig.build.json'), 'utf8')) as { include: string[] }).include;
const MARKERS = [join(ROOT, 'dist', 'cli', 'main.js'), join(ROOT, 'dist', 'api', 'index.js')];
const LOCK = join(ROOT, 'dist', '.build-lock');

function newestSource(directory: string): number {
  let newest = 0;
  for (const name of readdirSync(directory)) {
    if (name === 'fixtures' || name === 'node_modules') continue;
    const path = join(directory, name);
    const stats = statSync(path);
    if (stats.isDirectory()) newest = Math.max(newest, newestSource(path));
    else if (name.endsWith('.ts') && !name.endsWith('.test.ts')) newest = Math.max(newest, stats.mtimeMs);
  }
  return newest;
}

function fresh(): boolean {
  const sources = Math.max(...SOURCE_FOLDERS.filter((folder) => existsSync(join(ROOT, folder))).map((folder) => newestSource(join(ROOT, folder))));
  return MARKERS.every((marker) => existsSync(marker) && statSync(marker).mtimeMs >= sources);
}

function pause(milliseconds: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, milliseconds);
}

/** Build `dist/` unless it is newer than every source file. */
export function ensureBuilt(): void {
  if (fresh()) return;
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (let waited = 0; ; waited += 250) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (waited > 180_000) throw new Error(`${LOCK} is held for too long; remove it if no build runs.`);
      pause(250);
    }
  }
  try {
    if (fresh()) return;
    // Type errors elsewhere do not stop tsc from emitting; the markers' times decide.
    spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.build.json'], { cwd: ROOT, stdio: 'pipe' });
    if (!MARKERS.every((marker) => existsSync(marker))) throw new Error('npm run build did not produce dist/; run it to see why.');
  } finally {
    rmSync(LOCK, { recursive: true, force: true });
  }
}
