// Started with `node --import` (through NODE_OPTIONS, so every Node process of a run has it): each
// module the process loads is appended to `<MODULE_LOG_DIR>/<pid>.txt`, one `esm <url>` or
// `cjs <path>` line, after a first `# <argv>` line. ES modules are seen by a resolve hook (it runs
// in the loader's own thread, so it writes the file itself; a load hook would miss the files
// Playwright's own hook compiles, which never reach the next load hook); CommonJS ones through
// Module._load. Read the folder with `modulesByProcess` (module-log.ts).
import { appendFileSync, mkdirSync } from 'node:fs';
import Module, { register } from 'node:module';
import { join } from 'node:path';

const folder = process.env.MODULE_LOG_DIR;
if (folder !== undefined && folder !== '') {
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${process.pid}.txt`);
  appendFileSync(file, `# ${process.argv.join(' ')}\n`);
  const hook = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  appendFileSync(${JSON.stringify(file)}, 'esm ' + resolved.url + '\\n');
  return resolved;
}`;
  register(`data:text/javascript,${encodeURIComponent(hook)}`);
  const load = Module._load;
  Module._load = function logged(request, parent, isMain) {
    try {
      const path = Module._resolveFilename(request, parent, isMain);
      if (Module._cache[path] === undefined && path.includes('/')) appendFileSync(file, `cjs ${path}\n`);
    } catch {
      // Unresolvable: the real load reports it.
    }
    return load.apply(this, arguments);
  };
}
