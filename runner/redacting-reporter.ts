/**
 * The first reporter of every e2e run (main process). Playwright hands every reporter the same
 * result objects, one reporter after another in config order, and the HTML, JUnit and JSON
 * reporters read those objects again when the run ends. So this reporter cleans them in place
 * before any other reporter sees an event: every error (message, stack, snippet, value, cause),
 * step title, captured output chunk, annotation and inline text attachment is redacted with
 * the configured secrets (all but the attempt's own records, which passed its outbound boundary
 * in the worker). An attempt that typed a secret keeps none of the files Playwright
 * wrote for it (trace, screenshots, video, error context, and any other attachment on disk):
 * they cannot be cleaned, so they are deleted and dropped from the result, and the run says
 * once, per attempt, what was withheld and why.
 */
import { rmSync } from 'node:fs';
import { relative, resolve, sep } from 'node:path';
import type { FullConfig, Reporter, TestCase, TestError, TestResult, TestStep } from '@playwright/test/reporter';
import { createSecretRedactor, type SecretRedactor } from '../secrets/redactor.js';
import { printLines, secretValuesFromEnvironment } from './environment.js';
import { enterRun } from './run-entry.js';
import { explainInPlace } from './known-mistakes.js';
import { ATTEMPT_ATTACHMENT, parseAttemptPayload } from './report.js';
import { PROJECT_OPTION, type ProjectSettings } from './settings.js';

/** Every secret value a run may meet: each project's configured secrets and every `E2E_SECRET_*`. */
export function runSecrets(config: FullConfig): Array<[string, string]> {
  const values: Array<[string, string]> = [];
  for (const project of config.projects) {
    const settings = (project.use as Record<string, unknown>)[PROJECT_OPTION] as ProjectSettings | undefined;
    for (const [name, definition] of settings?.secrets.entries() ?? []) if (definition.value !== undefined) values.push([name, definition.value]);
  }
  for (const [name, value] of Object.entries(secretValuesFromEnvironment())) values.push([`env:${name}`, value]);
  return values;
}

/** Redact every string inside a plain data value in place (errors and their causes, annotations). */
export function redactInPlace(value: unknown, redact: (text: string) => string, seen = new WeakSet<object>()): void {
  if (value === null || typeof value !== 'object' || seen.has(value) || value instanceof Uint8Array || value instanceof Date) return;
  seen.add(value);
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record)) {
    const item = record[key];
    if (typeof item === 'string') {
      const redacted = redact(item);
      if (redacted !== item) record[key] = redacted;
    } else redactInPlace(item, redact, seen);
  }
}

const TEXT_TYPES = /^(text\/|application\/(json|xml|javascript|x-ndjson)|[^;]*\+(json|xml))/i;

/** What a withheld attachment was, for the notice. */
function kindOf(attachment: { name: string; contentType: string }): string {
  if (attachment.name === 'trace') return 'trace';
  if (attachment.name === 'video' || attachment.contentType.startsWith('video/')) return 'video';
  if (attachment.name === 'error-context') return 'error context';
  if (attachment.contentType.startsWith('image/')) return 'screenshot';
  return `attachment "${attachment.name}"`;
}

/** Playwright Test reporter that redacts every event before the other reporters see it. */
export default class RedactingReporter implements Reporter {
  #redactor: SecretRedactor = createSecretRedactor([]);
  #outputDirs: string[] = [];
  readonly #notices: string[] = [];

  /** Prints through the other reporters only. */
  printsToStdio(): boolean {
    return false;
  }

  onBegin(config: FullConfig): void {
    const secrets = runSecrets(config);
    this.#redactor = createSecretRedactor(secrets);
    // The main process's side of the runner entry: whatever a reporter prints passes the redactor at the sink too.
    enterRun({ process: 'main', config, secrets });
    this.#outputDirs = config.projects.map((project) => resolve(project.outputDir));
  }

  onStepBegin(_test: TestCase, _result: TestResult, step: TestStep): void {
    this.#cleanStep(step, false);
  }

  onStepEnd(_test: TestCase, _result: TestResult, step: TestStep): void {
    this.#cleanStep(step, false);
  }

  onStdOut(chunk: string | Buffer, _test: void | TestCase, result: void | TestResult): void {
    if (result) this.#cleanOutput(result.stdout, chunk);
  }

  onStdErr(chunk: string | Buffer, _test: void | TestCase, result: void | TestResult): void {
    if (result) this.#cleanOutput(result.stderr, chunk);
  }

  onError(error: TestError): void {
    redactInPlace(error, this.#redact);
    explainInPlace(error);
  }

  onTestEnd(test: TestCase, result: TestResult): void {
    const redact = this.#redact;
    for (const error of result.errors) {
      redactInPlace(error, redact);
      explainInPlace(error);
    }
    if (result.error !== undefined) redactInPlace(result.error, redact);
    redactInPlace(result.annotations, redact);
    redactInPlace(test.annotations, redact);
    for (const output of [result.stdout, result.stderr]) for (let index = 0; index < output.length; index++) output[index] = this.#cleanChunk(output[index]!);
    for (const step of result.steps) this.#cleanStep(step, true);
    const payload = parseAttemptPayload(result.attachments.find((item) => item.name === ATTEMPT_ATTACHMENT)?.body?.toString('utf8'));
    if (payload?.secretFilled === true) this.#withholdFiles(test, result);
    for (const attachment of result.attachments) {
      if (attachment.body === undefined || !TEXT_TYPES.test(attachment.contentType)) continue;
      // The attempt's records left it by its outbound boundary in the worker, redacted there once.
      if (attachment.name === ATTEMPT_ATTACHMENT) continue;
      const text = attachment.body.toString('utf8');
      const redacted = redact(text);
      if (redacted !== text) attachment.body = Buffer.from(redacted, 'utf8');
    }
  }

  onEnd(): void {
    if (this.#notices.length > 0) printLines(['', ...this.#notices]);
  }

  readonly #redact = (text: string): string => this.#redactor.redact(text);

  #cleanStep(step: TestStep, deep: boolean): void {
    const writable = step as { title: string; subtitle?: unknown };
    writable.title = this.#redact(step.title);
    if (typeof writable.subtitle === 'string') writable.subtitle = this.#redact(writable.subtitle);
    if (step.error !== undefined) redactInPlace(step.error, this.#redact);
    redactInPlace(step.annotations, this.#redact);
    if (deep) for (const child of step.steps) this.#cleanStep(child, true);
  }

  #cleanOutput(output: Array<string | Buffer>, chunk: string | Buffer): void {
    const index = output.lastIndexOf(chunk);
    if (index >= 0) output[index] = this.#cleanChunk(chunk);
  }

  #cleanChunk(chunk: string | Buffer): string | Buffer {
    if (typeof chunk === 'string') return this.#redact(chunk);
    const text = chunk.toString('utf8');
    const redacted = this.#redact(text);
    return redacted === text ? chunk : Buffer.from(redacted, 'utf8');
  }

  /** Drop every file attachment of an attempt that typed a secret; delete the ones Playwright wrote. */
  #withholdFiles(test: TestCase, result: TestResult): void {
    const withheld = result.attachments.filter((attachment) => attachment.path !== undefined || (attachment.body !== undefined && !TEXT_TYPES.test(attachment.contentType) && attachment.name !== ATTEMPT_ATTACHMENT && !isOwnScreenshot(attachment.name)));
    if (withheld.length === 0) return;
    for (const attachment of withheld) {
      if (attachment.path !== undefined && this.#isOutput(attachment.path)) rmSync(attachment.path, { force: true, recursive: true });
      result.attachments.splice(result.attachments.indexOf(attachment), 1);
    }
    const dropped = new Set<object>(withheld);
    const prune = (steps: TestStep[]) => {
      for (const step of steps) {
        for (let index = step.attachments.length - 1; index >= 0; index--) if (dropped.has(step.attachments[index]!)) step.attachments.splice(index, 1);
        prune(step.steps);
      }
    };
    prune(result.steps);
    const kinds = [...new Set(withheld.map(kindOf))].sort((left, right) => rank(left) - rank(right)).join(', ');
    const why = 'the attempt typed a secret, and these files cannot be cleaned of it';
    result.annotations.push({ type: 'e2e: withheld', description: `${kinds}: ${why}` });
    const title = test.titlePath().filter((part) => part !== '').slice(1).join(' › ');
    this.#notices.push(`Withheld  ${kinds} of "${this.#redact(title)}"${result.retry > 0 ? ` (retry ${result.retry})` : ''}: ${why}.`);
  }

  #isOutput(path: string): boolean {
    const absolute = resolve(path);
    return this.#outputDirs.some((folder) => {
      const inside = relative(folder, absolute);
      return inside !== '' && !inside.startsWith('..') && !inside.startsWith(sep);
    });
  }
}

const KIND_ORDER = ['trace', 'screenshot', 'video', 'error context'];

/** Known kinds in a fixed order, other attachments after them. */
function rank(kind: string): number {
  const index = KIND_ORDER.indexOf(kind);
  return index < 0 ? KIND_ORDER.length : index;
}

/** The agent's own step screenshots, attached before any fill (none after one). */
function isOwnScreenshot(name: string): boolean {
  return /^e2e-/.test(name);
}
