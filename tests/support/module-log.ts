/**
 * What each Node process of a run loaded, from the files `module-log.mjs` wrote: a test starts
 * the run with {@link moduleLogEnvironment} and reads the folder afterwards with
 * {@link modulesByProcess}.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const HOOK = fileURLToPath(new URL('./module-log.mjs', import.meta.url));

/** One process: its command line and the files of the modules it loaded (paths, in load order). */
export interface LoadedModules {
  argv: string;
  modules: string[];
}

/** Environment variables that make every Node process started with them log its modules into `folder`. */
export function moduleLogEnvironment(folder: string, nodeOptions: string | undefined = process.env['NODE_OPTIONS']): Record<string, string> {
  return { MODULE_LOG_DIR: folder, NODE_OPTIONS: [nodeOptions, `--import ${pathToFileURL(HOOK).href}`].filter((part) => part !== undefined && part !== '').join(' ') };
}

/** The processes that logged into `folder`, each with the modules it loaded (once each, in first-load order). */
export function modulesByProcess(folder: string): LoadedModules[] {
  return readdirSync(folder)
    .filter((name) => name.endsWith('.txt'))
    .map((name) => {
      const lines = readFileSync(join(folder, name), 'utf8').split('\n');
      const argv = lines.find((line) => line.startsWith('# '))?.slice(2) ?? '';
      const modules = lines.filter((line) => line.startsWith('esm ') || line.startsWith('cjs ')).map((line) => (line.startsWith('esm file:') ? fileURLToPath(line.slice(4)) : line.slice(4)));
      return { argv, modules: [...new Set(modules)] };
    });
}
