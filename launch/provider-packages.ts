/**
 * A config that imports a model provider package the project has not installed fails in Node's
 * module loader with a long stack naming neither the fix nor e2e. This finds such imports
 * before the run starts (the config file and the local files it imports, static imports only:
 * a dynamic `import()` may be meant to stay unused) and names the install command.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/** The environment variables that choose the model, for messages: `OPENAI_API_KEY, ANTHROPIC_API_KEY or E2E_OPENAI_COMPATIBLE_URL`. */
export const MODEL_VARIABLES_TEXT = 'OPENAI_API_KEY, ANTHROPIC_API_KEY or E2E_OPENAI_COMPATIBLE_URL (E2E_MODEL picks the model)';

/** Model provider packages (AI SDK providers) are the ones users add for e2e and forget. */
const PROVIDER = /^@ai-sdk\/[a-z0-9-]+$/;
const STATIC_IMPORT = /(?:^|[\n;])\s*(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|(?:^|[\n;])\s*import\s*['"]([^'"]+)['"]/g;
const LOCAL_EXTENSIONS = ['', '.ts', '.mts', '.js', '.mjs', '/index.ts', '/index.js'];

/** Source without comments, so a commented-out provider line (as `e2e init` writes) does not count. */
function withoutComments(source: string): string {
  return source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/[^\n]*/g, '$1');
}

function staticImports(file: string): string[] {
  let source: string;
  try {
    source = withoutComments(readFileSync(file, 'utf8'));
  } catch {
    return [];
  }
  return [...source.matchAll(STATIC_IMPORT)].map((match) => match[1] ?? match[2]!).filter((specifier) => specifier !== undefined);
}

/** The local file a relative specifier names (`./support/model.js` may be `model.ts` on disk). */
function localFile(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const stems = [base, base.replace(/\.(?:m?js)$/, '')];
  for (const stem of stems) {
    for (const extension of LOCAL_EXTENSIONS) if (existsSync(stem + extension) && !(stem + extension).endsWith('/')) return stem + extension;
  }
  return undefined;
}

/** True when `name` is installed in a `node_modules` folder at or above `folder`. */
function installed(name: string, folder: string): boolean {
  for (let current = folder; ; current = dirname(current)) {
    if (existsSync(join(current, 'node_modules', name, 'package.json'))) return true;
    if (dirname(current) === current) return false;
  }
}

/** What is imported and missing: each provider package, with the file that imports it. */
export interface MissingProvider {
  name: string;
  importedBy: string;
}

/** Provider packages the config (and the local files it imports, one level) imports but the project lacks. */
export function missingProviderPackages(configPath: string): MissingProvider[] {
  const missing: MissingProvider[] = [];
  const files = [configPath];
  for (const specifier of staticImports(configPath)) {
    if (!specifier.startsWith('.')) continue;
    const file = localFile(configPath, specifier);
    if (file !== undefined && !file.includes('node_modules')) files.push(file);
  }
  for (const file of files) {
    for (const specifier of staticImports(file)) {
      if (!PROVIDER.test(specifier) || missing.some((item) => item.name === specifier)) continue;
      if (!installed(specifier, dirname(file))) missing.push({ name: specifier, importedBy: file });
    }
  }
  return missing;
}

/** The one-line problem for missing provider packages, naming the install command. */
export function missingProviderProblem(missing: readonly MissingProvider[], relativeTo: (file: string) => string): string {
  const names = missing.map((item) => item.name);
  const where = [...new Set(missing.map((item) => relativeTo(item.importedBy)))].join(', ');
  return `${where} ${names.length === 1 ? 'imports the model provider package' : 'import the model provider packages'} ${names.join(', ')}, which ${names.length === 1 ? 'is' : 'are'} not installed: run \`npm install -D ${names.join(' ')}\`.`;
}
