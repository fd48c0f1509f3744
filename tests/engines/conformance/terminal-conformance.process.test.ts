/**
 * The engine conformance suite (`e2e/conformance`) on the terminal engine: a program in a
 * pseudo-terminal (`app/echo-terminal.mjs`) whose "New item" prompt adds what is typed to the
 * list above it when Enter is pressed, and its broken build, where Enter adds nothing. The
 * terminal has one cursor, so the scenario's field and a password prompt cannot both take
 * typing on one screen: the secure-field check is left to the engine's own tests
 * (tests/engines/terminal/real-programs.process.test.ts).
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';
import { conformanceChecks, type ConformanceSubject } from '../../../conformance/index.js';
import { terminal } from '../../../engines/terminal/index.js';
import { scaledTimeout } from '../../support/load-scaled.js';

const PROGRAM = join(fileURLToPath(new URL('./app/', import.meta.url)), 'echo-terminal.mjs');

const subject: ConformanceSubject = {
  name: 'terminal',
  engine: terminal(),
  app: { app: { command: process.execPath, args: [PROGRAM], cols: 80, rows: 24, identity: 'echo' } },
  broken: { app: { command: process.execPath, args: [PROGRAM, 'broken'], cols: 80, rows: 24, identity: 'echo' } },
  field: { role: 'textbox', name: 'New item' },
  submit: 'Enter',
  timeoutMs: scaledTimeout(10_000),
  replayWaitMs: scaledTimeout(2_000),
};

describe('the terminal engine keeps the engine contract', () => {
  for (const check of conformanceChecks(subject)) it(check.name, () => check.run(), scaledTimeout(60_000));
});
