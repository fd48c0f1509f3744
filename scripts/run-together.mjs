#!/usr/bin/env node
// Runs npm scripts side by side and fails when any of them fails. `npm test` runs the checks
// (types and lint on one program, the import table) beside the tests: the suite is CPU-bound, so
// the checks' CPU costs the same wherever it goes, and beside the tests it fills the cores instead
// of holding the tests back. The script after `--live` (the tests) prints as it goes, on the
// terminal; every other script's output is printed whole when it ends, so lines never interleave.
import { spawn } from 'node:child_process';

const args = process.argv.slice(2);
const liveAt = args.indexOf('--live');
const buffered = liveAt === -1 ? args : args.slice(0, liveAt);
const live = liveAt === -1 ? [] : args.slice(liveAt + 1);
if (buffered.length + live.length === 0 || live.length > 1) {
  process.stderr.write('usage: node scripts/run-together.mjs <npm script>… [--live <npm script>]\n');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Run `npm run <script>`, its output buffered; resolves with its exit code once its output is printed. */
function run(script) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => chunks.push(Buffer.from(`${error.message}\n`)));
    child.on('close', (code, signal) => {
      const status = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
      process.stdout.write(`\n> npm run ${script}: ${status}\n${Buffer.concat(chunks).toString('utf8')}`);
      resolve(code ?? 1);
    });
  });
}

/** Run `npm run <script>` on this terminal; resolves with its exit code. */
function runLive(script) {
  return new Promise((resolve) => {
    const child = spawn(npm, ['run', script], { stdio: 'inherit' });
    child.on('error', (error) => {
      process.stderr.write(`${error.message}\n`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
}

const scripts = [...buffered, ...live];
const codes = await Promise.all([...buffered.map(run), ...live.map(runLive)]);
const failed = scripts.filter((_, index) => codes[index] !== 0);
if (failed.length > 0) {
  process.stderr.write(`\nFailed: ${failed.map((script) => `npm run ${script}`).join(', ')}\n`);
  process.exit(1);
}
