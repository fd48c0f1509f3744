#!/usr/bin/env node
// Runs npm scripts side by side and fails when any of them fails: `npm test` builds, type-checks,
// checks the imports and lints at once (each is one process on one core; two cores finish the four
// in about half the time they take in a row). Each script's output is printed whole when it ends,
// so the lines of two scripts never interleave.
import { spawn } from 'node:child_process';

const scripts = process.argv.slice(2);
if (scripts.length === 0) {
  process.stderr.write('usage: node scripts/run-together.mjs <npm script>…\n');
  process.exit(2);
}

const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

/** Run `npm run <script>`; resolves with its exit code once its output is printed. */
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

const codes = await Promise.all(scripts.map(run));
const failed = scripts.filter((_, index) => codes[index] !== 0);
if (failed.length > 0) {
  process.stderr.write(`\nFailed: ${failed.map((script) => `npm run ${script}`).join(', ')}\n`);
  process.exit(1);
}
