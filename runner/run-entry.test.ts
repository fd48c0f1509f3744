/**
 * The runner entry: the main process turns video off for the workers when Playwright cannot
 * record it, and says so once; output is redacted from entry on.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FullConfig } from '@playwright/test/reporter';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ENVIRONMENT } from './environment.js';
import { enterRun, VIDEO_OFF_NOTICE } from './run-entry.js';
import { SecretTable } from './settings.js';

const saved = { ...process.env };
const folders: string[] = [];

afterEach(() => {
  vi.restoreAllMocks();
  for (const key of [ENVIRONMENT.videoUnavailable, 'PLAYWRIGHT_BROWSERS_PATH']) {
    if (saved[key] === undefined) delete process.env[key];
    else process.env[key] = saved[key];
  }
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function configAsking(video: unknown): FullConfig {
  return { projects: [{ name: 'web', use: { video } }] } as unknown as FullConfig;
}

/** A Playwright browsers folder with no ffmpeg in it. */
function noFfmpegHere(): void {
  const folder = mkdtempSync(join(tmpdir(), 'e2e-no-ffmpeg-'));
  folders.push(folder);
  process.env['PLAYWRIGHT_BROWSERS_PATH'] = folder;
}

describe('the runner entry', () => {
  it("turns video off for the workers and says so once when Playwright's ffmpeg is missing", () => {
    noFfmpegHere();
    delete process.env[ENVIRONMENT.videoUnavailable];
    const written = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const entered = enterRun({ process: 'main', config: configAsking('on'), secrets: [] });
    expect(entered.notices).toEqual([VIDEO_OFF_NOTICE]);
    expect(process.env[ENVIRONMENT.videoUnavailable]).toBe('1');
    expect(written.mock.calls.map(([chunk]) => String(chunk)).join('')).toBe(`[e2e] ${VIDEO_OFF_NOTICE}\n`);
  });

  it('looks for ffmpeg only when a project asks for video', () => {
    noFfmpegHere();
    delete process.env[ENVIRONMENT.videoUnavailable];
    const written = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    expect(enterRun({ process: 'main', config: configAsking({ mode: 'off' }), secrets: [] }).notices).toEqual([]);
    expect(enterRun({ process: 'worker', secrets: new SecretTable({}) }).notices).toEqual([]);
    expect(process.env[ENVIRONMENT.videoUnavailable]).toBeUndefined();
    expect(written).not.toHaveBeenCalled();
  });

  it("redacts this process's output from entry on with the project's secrets", async () => {
    const value = 'run-entry-canary-7f3a';
    const chunks: string[] = [];
    // Beneath the redactor, which wraps the stream's write as it finds it.
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      chunks.push(String(chunk));
      return true;
    });
    // A fresh copy of the entry: the unit tier shares modules between files (isolate: false), and an earlier
    // file's run (redacting-reporter.test.ts) may have wrapped the streams already, beneath this spy.
    vi.resetModules();
    const fresh = await import('./run-entry.js');
    fresh.enterRun({ process: 'worker', secrets: new SecretTable({ token: { value } }) });
    process.stderr.write(`the token is ${value}\n`);
    expect(chunks.join('')).toBe('the token is <secret:token>\n');
  });
});
