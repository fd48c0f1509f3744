/**
 * Upload path policy (DESIGN §3): a path must resolve inside the project root (symbolic
 * links followed), contain no hidden segment, and name an existing file.
 */
import { realpath, stat } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { E2EError } from '../errors/index.js';

function insideRoot(root: string, path: string): string | undefined {
  const inner = relative(root, path);
  if (inner === '' || inner.startsWith('..') || isAbsolute(inner)) return undefined;
  return inner;
}

/**
 * Check `paths` (relative to `projectRoot` or absolute) and return them as absolute paths.
 * Throws `POLICY_DENIED` for a path outside the root or with a hidden segment, and
 * `INVALID_ARGUMENT` for a missing file or an empty list.
 */
export async function checkUploadPaths(paths: readonly string[], projectRoot: string): Promise<string[]> {
  if (!Array.isArray(paths) || paths.length === 0 || paths.some((path) => typeof path !== 'string' || path.length === 0)) {
    throw new E2EError('INVALID_ARGUMENT', 'upload(target, paths) needs one or more file paths relative to the project root.');
  }
  const root = await realpath(resolve(projectRoot));
  const checked: string[] = [];
  for (const path of paths) {
    const absolute = resolve(root, path);
    const inner = insideRoot(root, absolute);
    if (inner === undefined) {
      throw new E2EError('POLICY_DENIED', `Upload refused: \`${path}\` is outside the project root; keep upload files inside the project.`);
    }
    if (inner.split(sep).some((segment) => segment.startsWith('.'))) {
      throw new E2EError('POLICY_DENIED', `Upload refused: \`${path}\` is a hidden path; move the file out of hidden folders.`);
    }
    let real: string;
    try {
      real = await realpath(absolute);
    } catch {
      throw new E2EError('INVALID_ARGUMENT', `Upload failed: \`${path}\` does not exist under the project root.`);
    }
    const realInner = insideRoot(root, real);
    if (realInner === undefined || realInner.split(sep).some((segment) => segment.startsWith('.'))) {
      throw new E2EError('POLICY_DENIED', `Upload refused: \`${path}\` links outside the project root or into a hidden path.`);
    }
    if (!(await stat(real)).isFile()) {
      throw new E2EError('INVALID_ARGUMENT', `Upload failed: \`${path}\` is not a file.`);
    }
    checked.push(real);
  }
  return checked;
}
