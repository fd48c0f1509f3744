/**
 * Child processes of the fault tests run plain compiled JavaScript: `node --import tsx`
 * costs ~0.35 s of start-up per process, which 100+ killed writers cannot afford. This
 * transpiles (types stripped, nothing else) the cache modules and the worker into a temp
 * folder that resolves packages from this repo's node_modules.
 */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

const repositoryRoot = fileURLToPath(new URL('../../../..', import.meta.url));

/** A compiled copy of the worker and what it imports. */
export interface CompiledWorker {
  /** Path of the compiled `cache-worker.js`. */
  workerPath: string;
  /** Removes the compiled copy. */
  remove(): void;
}

/** The non-test sources of one folder of the repository. */
function sourcesOf(folder: string): string[] {
  const directory = join(repositoryRoot, folder);
  return readdirSync(directory)
    .filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))
    .map((name) => join(directory, name));
}

function sourcesToCompile(): string[] {
  return [
    ...sourcesOf('cache-format'),
    ...sourcesOf('errors'),
    join(repositoryRoot, 'tests', 'support', 'sample-entries.ts'),
    join(repositoryRoot, 'tests', 'faults', 'cache', 'support', 'seeded-random.ts'),
    join(repositoryRoot, 'tests', 'faults', 'cache', 'support', 'cache-worker.ts'),
  ];
}

/** Transpiles the worker and its imports into a fresh temp folder. */
export function compileWorker(): CompiledWorker {
  const outputRoot = mkdtempSync(join(tmpdir(), 'e2e-cache-worker-'));
  for (const source of sourcesToCompile()) {
    const output = ts.transpileModule(readFileSync(source, 'utf8'), {
      fileName: source,
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: true },
    });
    const target = join(outputRoot, relative(repositoryRoot, source)).replace(/\.ts$/, '.js');
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, output.outputText);
  }
  writeFileSync(join(outputRoot, 'package.json'), '{ "type": "module" }\n');
  symlinkSync(join(repositoryRoot, 'node_modules'), join(outputRoot, 'node_modules'), 'dir');
  return {
    workerPath: join(outputRoot, 'tests', 'faults', 'cache', 'support', 'cache-worker.js'),
    remove: () => rmSync(outputRoot, { recursive: true, force: true }),
  };
}
