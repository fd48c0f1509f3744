/**
 * Finding the user's line on a stack: V8 frame lines (named, anonymous, file URLs), and which
 * files are skipped (this package's, Node's, Playwright's).
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { callerLocation, isLibraryFile, parseStackLine, userFrames } from './caller-location.js';

const OWN_FILE = fileURLToPath(new URL('./agent-api.ts', import.meta.url));

describe('caller location', () => {
  it('reads named, anonymous and file-URL frames', () => {
    expect(parseStackLine('    at Object.act (/project/tests/todos.e2e.ts:12:15)')).toEqual({ file: '/project/tests/todos.e2e.ts', line: 12, column: 15 });
    expect(parseStackLine('    at /project/tests/todos.e2e.ts:4:3')).toEqual({ file: '/project/tests/todos.e2e.ts', line: 4, column: 3 });
    expect(parseStackLine('    at async file:///project/tests/todos.e2e.ts:9:1')).toEqual({ file: '/project/tests/todos.e2e.ts', line: 9, column: 1 });
    expect(parseStackLine('Error: boom')).toBeUndefined();
  });

  it("skips this package's, Node's and Playwright's frames", () => {
    expect(isLibraryFile(OWN_FILE)).toBe(true);
    expect(isLibraryFile('node:internal/process/task_queues')).toBe(true);
    expect(isLibraryFile('/project/node_modules/playwright/lib/common/index.js')).toBe(true);
    expect(isLibraryFile('/project/node_modules/@playwright/test/index.js')).toBe(true);
    expect(isLibraryFile('/project/tests/todos.e2e.ts')).toBe(false);
    const stack = ['Error', `    at step (${OWN_FILE}:10:5)`, '    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)', '    at /project/tests/todos.e2e.ts:12:15'].join('\n');
    expect(userFrames(stack)).toEqual([{ file: '/project/tests/todos.e2e.ts', line: 12, column: 15 }]);
  });

  it("names the first frame outside this package: from this file (in runner/) that is vitest's", () => {
    const found = callerLocation();
    expect(found?.file).not.toBe(fileURLToPath(import.meta.url));
    expect(found?.file).toContain('vitest');
  });
});
