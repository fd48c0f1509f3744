/**
 * Golden files: compare a produced text with `golden/<path>`, rewriting it only when the
 * caller passes `update: true` (the test file decides, e.g. from `UPDATE_GOLDEN=1`).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const GOLDEN_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..', 'golden');

/** True when the CI variable is set: goldens are never rewritten there. */
export function isContinuousIntegration(): boolean {
  const value = process.env['CI'];
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

/** The folder of every golden file. */
export const GOLDEN_FOLDER = GOLDEN_ROOT;

/** The outcome of a golden comparison. */
export type GoldenResult = { kind: 'matched' } | { kind: 'written'; path: string } | { kind: 'differs'; expected: string; path: string } | { kind: 'missing'; path: string };

/** Compare `actual` with `golden/<relativePath>`; with `update`, write it instead. */
export async function compareGolden(relativePath: string, actual: string, options: { update: boolean }): Promise<GoldenResult> {
  const path = join(GOLDEN_ROOT, relativePath);
  if (options.update && isContinuousIntegration()) {
    throw new Error(`Refusing to rewrite golden/${relativePath} in CI: goldens change only on a developer's machine with UPDATE_GOLDEN=1.`);
  }
  if (options.update) {
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, actual.endsWith('\n') ? actual : actual + '\n');
    return { kind: 'written', path };
  }
  let expected: string;
  try {
    expected = await readFile(path, 'utf8');
  } catch {
    return { kind: 'missing', path };
  }
  const normalized = actual.endsWith('\n') ? actual : actual + '\n';
  return expected === normalized ? { kind: 'matched' } : { kind: 'differs', expected, path };
}
