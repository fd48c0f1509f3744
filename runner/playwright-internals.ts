/**
 * Every Playwright internal e2e relies on, in one place, with a probe for each (DESIGN §1).
 * Playwright has no public hook for these, and several guarantees rest on them: a passing
 * `expect` from `@playwright/test` verifies a step (`TestInfo._addStep`) and tells what it looked
 * at (`Locator._expect`), a typed secret never
 * shows in a step title of the HTML report or the trace (`_wrapApiCall`), `--list` leaves
 * `.e2e/` as it was (the reporter option `_mode`), no failure page snapshot is kept after a
 * secret fill (`PLAYWRIGHT_NO_COPY_PROMPT`), and an audit runs every mutant of a test in one
 * worker (`TestTypeImpl._createTest`, {@link copyTestRegistrations}) and a `--grep` selects them as it selects the test (`TestCase._grepBaseTitlePath`). A Playwright that lacks one fails the run with
 * `UNSUPPORTED_CAPABILITY` naming it and the fix; nothing falls back to a weaker guarantee.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { E2EError } from '../errors/index.js';

/** The internals, by the name a failure shows. */
export type PlaywrightInternal = 'TestInfo._addStep' | 'Locator._expect' | 'Page._wrapApiCall' | 'the reporter option _mode' | 'PLAYWRIGHT_NO_COPY_PROMPT' | 'TestTypeImpl._createTest' | 'TestCase._grepBaseTitlePath';

/** What each internal keeps true, for the failure message. */
export const PLAYWRIGHT_INTERNALS: Readonly<Record<PlaywrightInternal, string>> = {
  'TestInfo._addStep': "lets an `expect` from '@playwright/test' verify the agent step before it",
  'Locator._expect': "lets an `expect` on a locator tell the recording what it looked at, so the step's end check rests on it",
  'Page._wrapApiCall': 'keeps typed secrets out of the step titles of the HTML report and the trace',
  'the reporter option _mode': 'keeps `--list` from writing .e2e/report.json',
  PLAYWRIGHT_NO_COPY_PROMPT: 'keeps the failure page snapshot (error-context.md) of an attempt that typed a secret',
  'TestTypeImpl._createTest': 'lets `e2e cache audit` run the mutants of a test in one worker process (one copy of the test per mutant)',
  'TestCase._grepBaseTitlePath': "lets `e2e cache audit --grep` select a test's copies exactly when it selects the test",
};

/** The oldest and newest `@playwright/test` e2e is tested with (tests/install/playwright-range.install.test.ts). */
export const TESTED_PLAYWRIGHT = { oldest: '1.56.0', newest: '1.65.1' } as const;

const require = createRequire(import.meta.url);

/** The version of the `@playwright/test` this package resolves (the project's own), if it can be read. */
export function playwrightTestVersion(): string | undefined {
  try {
    const manifest = JSON.parse(readFileSync(require.resolve('@playwright/test/package.json'), 'utf8')) as { version?: unknown };
    return typeof manifest.version === 'string' ? manifest.version : undefined;
  } catch {
    return undefined;
  }
}

/** The coded error for a missing internal: which one, what it keeps true, and the fix. */
export function missingInternalError(missing: readonly PlaywrightInternal[], version = playwrightTestVersion()): E2EError {
  const names = missing.map((name) => `${name} (${PLAYWRIGHT_INTERNALS[name]})`).join('; ');
  return new E2EError(
    'UNSUPPORTED_CAPABILITY',
    `This Playwright (@playwright/test ${version ?? 'of unknown version'}) lacks ${missing.length === 1 ? 'an internal' : 'internals'} e2e relies on: ${names}. ` +
      `e2e is tested with @playwright/test ${TESTED_PLAYWRIGHT.oldest} to ${TESTED_PLAYWRIGHT.newest}: install one of those, e.g. \`npm install -D @playwright/test@${TESTED_PLAYWRIGHT.newest}\`.`,
  );
}

/** Playwright's source that reads `PLAYWRIGHT_NO_COPY_PROMPT` (its worker's artifacts recorder). */
function failureSnapshotSource(): string | undefined {
  try {
    const testRequire = createRequire(require.resolve('@playwright/test/package.json'));
    return readFileSync(join(dirname(testRequire.resolve('playwright/package.json')), 'lib', 'index.js'), 'utf8');
  } catch {
    return undefined;
  }
}

let failureSnapshotSwitch: boolean | undefined;

/** What {@link probePlaywrightInternals} looks at; a subject left out is not probed. */
export interface InternalSubjects {
  /** The attempt's `TestInfo`. */
  testInfo?: unknown;
  /** The attempt's Playwright page (the engine's host object). */
  page?: unknown;
  /** A locator of the attempt's page (its class holds `_expect`). */
  locator?: unknown;
  /** The options Playwright hands a reporter's constructor. */
  reporterOptions?: unknown;
  /** Probe the failure snapshot switch; `source` replaces Playwright's file (for tests). */
  failureSnapshot?: boolean | { source: string | undefined };
}

/** The internals missing from the given subjects (empty when all are there). */
export function probePlaywrightInternals(subjects: InternalSubjects): PlaywrightInternal[] {
  const missing: PlaywrightInternal[] = [];
  if (subjects.testInfo !== undefined && typeof (subjects.testInfo as { _addStep?: unknown })._addStep !== 'function') missing.push('TestInfo._addStep');
  if (subjects.locator !== undefined && typeof (subjects.locator as { _expect?: unknown })._expect !== 'function') missing.push('Locator._expect');
  if (subjects.page !== undefined && typeof (subjects.page as { _wrapApiCall?: unknown })._wrapApiCall !== 'function') missing.push('Page._wrapApiCall');
  if (subjects.reporterOptions !== undefined && typeof (subjects.reporterOptions as { _mode?: unknown })._mode !== 'string') missing.push('the reporter option _mode');
  if (subjects.failureSnapshot !== undefined && subjects.failureSnapshot !== false) {
    let present: boolean;
    if (typeof subjects.failureSnapshot === 'object') present = subjects.failureSnapshot.source?.includes('process.env.PLAYWRIGHT_NO_COPY_PROMPT') === true;
    else present = failureSnapshotSwitch ??= failureSnapshotSource()?.includes('process.env.PLAYWRIGHT_NO_COPY_PROMPT') === true;
    if (!present) missing.push('PLAYWRIGHT_NO_COPY_PROMPT');
  }
  return missing;
}

/** Probe the subjects and throw {@link missingInternalError} when any internal is missing. */
export function requirePlaywrightInternals(subjects: InternalSubjects): void {
  const missing = probePlaywrightInternals(subjects);
  if (missing.length > 0) throw missingInternalError(missing);
}

/** Playwright's step data, as `TestInfo._addStep(data, parent)` takes it (fields e2e reads). */
export interface PlaywrightStepData {
  box?: unknown;
  category?: unknown;
  title?: unknown;
  stack?: unknown;
  params?: unknown;
}

/** What a step's `complete(result)` receives. */
export interface PlaywrightStepResult {
  error?: unknown;
  softError?: unknown;
  name?: unknown;
}

/** The step `_addStep` returns (fields e2e reads or replaces). */
export interface PlaywrightRecordedStep {
  stack?: unknown;
  boxedStack?: unknown;
  complete?: (result: PlaywrightStepResult) => unknown;
}

/** `TestInfo._addStep`. */
export type AddStep = (data: PlaywrightStepData, parent?: unknown) => PlaywrightRecordedStep;

/**
 * Replace `testInfo._addStep` with `wrap(original)`; the returned function puts Playwright's
 * own back. Throws `UNSUPPORTED_CAPABILITY` when this Playwright has none.
 */
export function replaceAddStep(testInfo: unknown, wrap: (original: AddStep) => AddStep): () => void {
  requirePlaywrightInternals({ testInfo });
  const host = testInfo as { _addStep?: unknown };
  const original = host._addStep as AddStep;
  const observed = wrap(original);
  host._addStep = observed;
  return () => {
    if (host._addStep === observed) delete host._addStep;
    // An own property may have shadowed the prototype's; put it back if deleting did not.
    if (host._addStep !== original) host._addStep = original;
  };
}

/** What `Locator._expect(expression, options)` resolves with (the fields e2e reads). */
export interface LocatorExpectResult {
  matches?: unknown;
}

/** `Locator._expect`: every web-first matcher on a locator asks the page through it. */
export type LocatorExpect = (this: unknown, expression: string, options: { isNot?: unknown }) => Promise<LocatorExpectResult>;

/**
 * Replace `_expect` of the class of `locator` (every locator of the worker shares it) with
 * `wrap(original)`; the returned function puts Playwright's own back. Throws
 * `UNSUPPORTED_CAPABILITY` when this Playwright has none.
 */
export function replaceLocatorExpect(locator: unknown, wrap: (original: LocatorExpect) => LocatorExpect): () => void {
  requirePlaywrightInternals({ locator });
  const prototype = Object.getPrototypeOf(locator) as { _expect: LocatorExpect };
  const original = prototype._expect;
  const watched = wrap(original);
  prototype._expect = watched;
  return () => {
    if (prototype._expect === watched) prototype._expect = original;
  };
}

type InternalCallHost = { _wrapApiCall: (body: () => Promise<unknown>, options: { internal: boolean }) => Promise<unknown> };

/**
 * Run work as one internal Playwright call of `host` (a page): the engine's own calls (walks,
 * clicks, fills) then stay out of the HTML report's step list and the trace, where a typed
 * secret would otherwise show in a step title (`Fill "…"`). With no host (an engine that is
 * not Playwright's) the work runs as it is; a page without `_wrapApiCall` is
 * `UNSUPPORTED_CAPABILITY`. Errors are carried out of the wrapper untouched (it would prefix
 * their messages).
 */
export async function asInternalCall<T>(host: unknown, work: () => Promise<T>): Promise<T> {
  if (host === undefined || host === null) return work();
  requirePlaywrightInternals({ page: host });
  type Settled = { ok: true; value: T } | { ok: false; error: unknown };
  const settled = (await (host as InternalCallHost)._wrapApiCall.call(
    host,
    (): Promise<Settled> => work().then((value): Settled => ({ ok: true, value }), (error: unknown): Settled => ({ ok: false, error })),
    { internal: true },
  )) as Settled;
  if (!settled.ok) throw settled.error;
  return settled.value;
}

/** True for a `--list` run (nothing runs): Playwright tells reporters by the option `_mode`. */
export function isListingRun(reporterOptions: { _mode?: unknown }): boolean {
  return reporterOptions._mode === 'list';
}

/** The variable Playwright's worker reads, when a context closes, to skip the failure page snapshot. */
export const FAILURE_SNAPSHOT_SWITCH = 'PLAYWRIGHT_NO_COPY_PROMPT';

/** Where a test is declared: the file of the call (Playwright's `location.file`, the test's `testInfo.file`). */
export interface TestDeclaration {
  /** Absolute path of the file that called `test(…)`. */
  file: string;
  /** The describe titles (empty ones left out, as Playwright's title path leaves them out) and the test's title. */
  titlePath: string[];
}

/** The registration e2e wraps: `TestTypeImpl.prototype._createTest(type, location, title, fnOrDetails, fn)`. */
type CreateTest = (this: TestTypeInstance, type: string, location: { file?: unknown; line?: unknown; column?: unknown } | undefined, title: unknown, fnOrDetails: unknown, fn?: unknown) => void;
interface TestTypeInstance {
  _createTest: CreateTest;
  _currentSuite(location: unknown, title: string): { titlePath(): string[]; tests?: unknown } | undefined;
}

/** What of Playwright's `TestCase` the copies' grep titles rest on: the title path a `--grep` and a project's `grep` match. */
interface TestCaseInternals {
  title: string;
  location?: { file?: unknown; line?: unknown; column?: unknown };
  _projectId?: unknown;
  _grepBaseTitlePath(): string[];
}

/** A copy of a test as its project sees it when Playwright filters the tests by title. */
export interface TestCopy {
  /** The project's id (its name). */
  projectId: string;
  /** Absolute path of the file that declared the test. */
  file: string;
  /** The copy's describe titles and title (`<title> · audit n`). */
  titlePath: string[];
}

/** Whether {@link copyTestRegistrations} wrapped Playwright's registration in this process. */
let copiesInstalled: boolean | undefined;

/**
 * Make every test declared from now on with a test type made by `extend` or `mergeTests` (e2e's
 * `test` and the user's extensions of it; `baseTest` is `@playwright/test`'s own, whose class
 * they share) also declare the titles `copiesOf` gives for it: same body, details, modifiers and
 * place in its describe. Playwright gives a test's worker by project (and repeat), never by
 * test, so copies of a test are what lets one worker run it several times. A copy that
 * `greppedAsTest` says runs in its project is matched by title as its test is
 * (`TestCase._grepBaseTitlePath`, what `--grep`, `--grep-invert` and a project's `grep` read):
 * the user's title filters then select a test's copies exactly when they select the test.
 * Idempotent; false when this Playwright declares tests another way (`TestTypeImpl._createTest`
 * and `_currentSuite` missing): nothing is wrapped then. A Playwright whose tests have no
 * `_grepBaseTitlePath` fails the declaration of the first copy with `UNSUPPORTED_CAPABILITY`.
 */
export function copyTestRegistrations(baseTest: unknown, copiesOf: (declaration: TestDeclaration) => readonly string[], greppedAsTest: (copy: TestCopy) => boolean): boolean {
  if (copiesInstalled !== undefined) return copiesInstalled;
  const symbol = typeof baseTest === 'function' ? Object.getOwnPropertySymbols(baseTest).find((candidate) => candidate.description === 'testType') : undefined;
  const instance = symbol === undefined ? undefined : ((baseTest as unknown as Record<symbol, unknown>)[symbol] as TestTypeInstance | undefined);
  const prototype = instance === undefined || instance === null ? undefined : (Object.getPrototypeOf(instance) as TestTypeInstance | null);
  if (prototype === undefined || prototype === null || typeof prototype._createTest !== 'function' || typeof prototype._currentSuite !== 'function') {
    copiesInstalled = false;
    return false;
  }
  // Each copy, by where it was declared and its title: the test's title and the copy's title path.
  const copies = new Map<string, { title: string; file: string; titlePath: string[] }>();
  const placeOf = (location: TestCaseInternals['location'], title: string): string => `${String(location?.file)}\u0000${String(location?.line)}:${String(location?.column)}\u0000${title}`;
  let greppedAsTests = false;
  const grepCopiesAsTests = (declared: unknown): void => {
    if (greppedAsTests) return;
    const testCase = (declared === null || typeof declared !== 'object' ? undefined : Object.getPrototypeOf(declared)) as TestCaseInternals | undefined;
    const grepPath = testCase?._grepBaseTitlePath;
    if (testCase === undefined || typeof grepPath !== 'function') throw missingInternalError(['TestCase._grepBaseTitlePath']);
    testCase._grepBaseTitlePath = function grepTitlePathOfTestOrCopy(this: TestCaseInternals): string[] {
      const path = grepPath.call(this);
      const copy = copies.get(placeOf(this.location, this.title));
      if (copy !== undefined && typeof this._projectId === 'string' && greppedAsTest({ projectId: this._projectId, file: copy.file, titlePath: copy.titlePath })) path[path.length - 1] = copy.title;
      return path;
    };
    greppedAsTests = true;
  };
  const original = prototype._createTest;
  prototype._createTest = function createTestAndCopies(type, location, title, fnOrDetails, fn) {
    original.call(this, type, location, title, fnOrDetails, fn);
    if (typeof title !== 'string' || typeof location?.file !== 'string') return;
    // The loading file's suite is parentless: its title path is the file's, then the describes'.
    const suite = this._currentSuite(location, 'test()');
    const describes = suite?.titlePath().slice(1) ?? [];
    const titles = copiesOf({ file: location.file, titlePath: [...describes, title] });
    if (titles.length === 0) return;
    grepCopiesAsTests(Array.isArray(suite?.tests) ? suite.tests.at(-1) : undefined);
    for (const copy of titles) {
      copies.set(placeOf(location, copy), { title, file: location.file, titlePath: [...describes, copy] });
      original.call(this, type, location, copy, fnOrDetails, fn);
    }
  };
  copiesInstalled = true;
  return true;
}

/** True once {@link copyTestRegistrations} wrapped Playwright's registration; undefined before it was tried. */
export function testCopiesInstalled(): boolean | undefined {
  return copiesInstalled;
}
