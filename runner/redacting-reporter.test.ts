import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig, TestCase, TestResult, TestStep } from '@playwright/test/reporter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import RedactingReporter, { redactInPlace } from './redacting-reporter.js';
import { ATTEMPT_ATTACHMENT, REPORT_VERSION } from './report.js';
import { PROJECT_OPTION, SecretTable } from './settings.js';

const VALUE = 'Rp7 Canary+Tok/22';
const folders: string[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function configWith(outputDir: string): FullConfig {
  const settings = { secrets: new SecretTable({ canary: { value: VALUE } }) };
  return { projects: [{ name: 'web', outputDir, use: { [PROJECT_OPTION]: settings } }] } as unknown as FullConfig;
}

function step(title: string, attachments: TestResult['attachments'] = [], error?: string): TestStep {
  return { title, steps: [], attachments, annotations: [], ...(error === undefined ? {} : { error: { message: error } }) } as unknown as TestStep;
}

const test = { titlePath: () => ['', 'web', 'echo.e2e.ts', 'fills'], annotations: [] } as unknown as TestCase;

describe('the redacting reporter', () => {
  it('redacts errors, causes, step titles, output chunks and inline text attachments in place', () => {
    const reporter = new RedactingReporter();
    reporter.onBegin(configWith(tmpdir()));
    const error = { message: `Received: "You typed ${VALUE}"`, stack: `Error: ${encodeURIComponent(VALUE)}`, cause: { message: VALUE.toUpperCase() } };
    const child = step(`saw ${VALUE}`, [], `expected ${VALUE}`);
    const result = {
      retry: 0,
      errors: [error],
      error,
      annotations: [{ type: 'note', description: VALUE }],
      stdout: [`title ${VALUE}\n`],
      stderr: [Buffer.from(`stored ${VALUE}`)],
      steps: [{ ...step('outer'), steps: [child] }],
      attachments: [{ name: 'page', contentType: 'text/plain', body: Buffer.from(`page ${VALUE}`) }],
    } as unknown as TestResult;
    reporter.onStepEnd(test, result, child);
    reporter.onStdOut(result.stdout[0]!, test, result);
    reporter.onTestEnd(test, result);
    const everything = JSON.stringify(result, (_key, value: unknown) => (value instanceof Buffer || (value as { type?: string })?.type === 'Buffer' ? Buffer.from((value as { data: number[] }).data ?? value).toString('utf8') : value));
    expect(everything).not.toContain('Canary');
    expect(everything).not.toContain('CANARY');
    expect(error.message).toBe('Received: "You typed <secret:canary>"');
    expect(child.title).toBe('saw <secret:canary>');
    expect(result.stderr[0]!.toString()).toBe('stored <secret:canary>');
  });

  it('withholds the files of an attempt that typed a secret, deleting only what lies in the output folder, and says so once', () => {
    const output = mkdtempSync(join(tmpdir(), 'e2e-redacting-'));
    const outside = mkdtempSync(join(tmpdir(), 'e2e-redacting-user-'));
    folders.push(output, outside);
    mkdirSync(join(output, 'attempt'));
    const trace = join(output, 'attempt', 'trace.zip');
    const shot = join(output, 'attempt', 'test-finished-1.png');
    const userFile = join(outside, 'notes.txt');
    for (const path of [trace, shot, userFile]) writeFileSync(path, 'bytes');
    const written = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const reporter = new RedactingReporter();
    reporter.onBegin(configWith(output));
    const payload = JSON.stringify({ version: REPORT_VERSION, steps: [], verifications: [], secretFilled: true });
    const attachments = [
      { name: ATTEMPT_ATTACHMENT, contentType: 'application/json', body: Buffer.from(payload) },
      { name: 'e2e-screenshot-1', contentType: 'image/png', body: Buffer.from('png before the fill') },
      { name: 'trace', contentType: 'application/zip', path: trace },
      { name: 'screenshot', contentType: 'image/png', path: shot },
      { name: 'notes', contentType: 'text/plain', path: userFile },
      { name: 'inline shot', contentType: 'image/png', body: Buffer.from('png after the fill') },
    ];
    const holding = step('screenshot step', [attachments[3]!]);
    const result = { retry: 1, errors: [], annotations: [], stdout: [], stderr: [], steps: [holding], attachments: [...attachments] } as unknown as TestResult;
    reporter.onTestEnd(test, result);
    reporter.onEnd();
    expect(result.attachments.map((attachment) => attachment.name)).toEqual([ATTEMPT_ATTACHMENT, 'e2e-screenshot-1']);
    expect(holding.attachments).toEqual([]);
    expect([existsSync(trace), existsSync(shot), existsSync(userFile)]).toEqual([false, false, true]);
    expect(result.annotations).toEqual([{ type: 'e2e: withheld', description: 'trace, screenshot, attachment "notes": the attempt typed a secret, and these files cannot be cleaned of it' }]);
    const printed = written.mock.calls.map(([chunk]) => String(chunk)).join('');
    expect(printed.split('Withheld  trace, screenshot').length - 1).toBe(1);
    expect(printed).toContain('of "echo.e2e.ts › fills" (retry 1): the attempt typed a secret');
  });

  it('keeps the files of an attempt that typed no secret', () => {
    const reporter = new RedactingReporter();
    reporter.onBegin(configWith(tmpdir()));
    const attachments = [{ name: 'trace', contentType: 'application/zip', path: join(tmpdir(), 'not-there.zip') }];
    const result = { retry: 0, errors: [], annotations: [], stdout: [], stderr: [], steps: [], attachments: [...attachments] } as unknown as TestResult;
    reporter.onTestEnd(test, result);
    expect(result.attachments).toEqual(attachments);
  });

  it('redacts nested data in place and survives cycles', () => {
    const data: Record<string, unknown> = { text: VALUE, list: [{ deeper: `x ${VALUE}` }] };
    data['self'] = data;
    redactInPlace(data, (text) => text.split(VALUE).join('<gone>'));
    expect(data).toMatchObject({ text: '<gone>', list: [{ deeper: 'x <gone>' }] });
  });
});
