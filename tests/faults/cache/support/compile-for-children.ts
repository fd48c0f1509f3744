/**
 * Child processes of the fault tests run plain JavaScript in one file: `node --import tsx`
 * costs ~0.35 s of start-up per process, and even the sources transpiled file by file cost
 * ~0.2 CPU-s each to load (zod alone is ~100 modules), which 100+ killed writers cannot afford.
 * This bundles the worker, the cache modules and the packages they import (the same code) into
 * one ES module with Vite's build (~0.1 CPU-s to start), in a temp folder that resolves what a
 * package loads at run time (msgpackr's optional native extension) from this repo's node_modules.
 */
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'vite';

const repositoryRoot = fileURLToPath(new URL('../../../..', import.meta.url));
const WORKER_SOURCE = join(repositoryRoot, 'tests', 'faults', 'cache', 'support', 'cache-worker.ts');
const WORKER_FILE = 'cache-worker.mjs';

/** A compiled copy of the worker and what it imports. */
export interface CompiledWorker {
  /** Path of the bundled `cache-worker.mjs`. */
  workerPath: string;
  /** Removes the compiled copy. */
  remove(): void;
}

/** Bundles the worker and its imports into a fresh temp folder. */
export async function compileWorker(): Promise<CompiledWorker> {
  const outputRoot = mkdtempSync(join(tmpdir(), 'e2e-cache-worker-'));
  await build({
    configFile: false,
    logLevel: 'warn',
    build: {
      ssr: WORKER_SOURCE,
      outDir: outputRoot,
      emptyOutDir: false,
      minify: false,
      rollupOptions: { output: { format: 'es', entryFileNames: WORKER_FILE } },
    },
    // Everything in the one file, packages too: Node then resolves and loads one module, not hundreds.
    ssr: { noExternal: true, target: 'node' },
  });
  symlinkSync(join(repositoryRoot, 'node_modules'), join(outputRoot, 'node_modules'), 'dir');
  return {
    workerPath: join(outputRoot, WORKER_FILE),
    remove: () => rmSync(outputRoot, { recursive: true, force: true }),
  };
}
