/**
 * The runner entry: the side effects of a run, made once where each process of the run
 * starts, never when a config is merely evaluated (`defineConfig` is pure, see
 * `resolveConfig`). Playwright's main process enters through the redacting reporter (first
 * of every e2e reporter list, before any worker is forked); each worker enters through its
 * worker fixture, before its first test.
 */
import type { FullConfig } from '@playwright/test/reporter';
import { markVideoUnavailable, printLines, readRunEnvironment, redactProcessOutput, secretValuesFromEnvironment } from './environment.js';
import { playwrightCanRecordVideo } from './playwright-video.js';
import type { SecretTable } from './settings.js';

/** Where a process enters the run. */
export type RunEntry =
  /** Playwright's main process, with the loaded config's projects and the secrets they carry. */
  | { process: 'main'; config: FullConfig; secrets: ReadonlyArray<readonly [string, string]> }
  /** A worker, with its project's secrets. */
  | { process: 'worker'; secrets: SecretTable };

/** What the main process decided for the whole run. */
export interface RunEntered {
  /** Lines the run printed about what it changed in Playwright's options. */
  notices: string[];
}

/** The notice of a run that asked for video where Playwright cannot record it. */
export const VIDEO_OFF_NOTICE = "Video is off: Playwright records video with its own ffmpeg, which is not installed (`npx playwright install ffmpeg`).";

/** True when `use.video` asks for any recording. */
export function videoRequested(video: unknown): boolean {
  if (video === undefined || video === 'off') return false;
  if (typeof video === 'object' && video !== null) return (video as { mode?: unknown }).mode !== 'off';
  return true;
}

/**
 * Enter the run in this process: from now on its output is redacted with every configured
 * secret and `E2E_SECRET_*` value. In the main process, a run that asks for video where
 * Playwright has no ffmpeg goes on without it (every page would fail): the workers, forked
 * after this, resolve the config with video off, and the run says so once.
 */
export function enterRun(entry: RunEntry): RunEntered {
  const secrets: Array<readonly [string, string | undefined]> =
    entry.process === 'main'
      ? [...entry.secrets]
      : [
          ...entry.secrets.entries().map(([name, definition]) => [name, definition.value] as const),
          ...Object.entries(secretValuesFromEnvironment()).map(([name, value]) => [`env:${name}`, value] as const),
        ];
  redactProcessOutput(secrets);
  if (entry.process === 'worker') return { notices: [] };
  const notices: string[] = [];
  const wantsVideo = entry.config.projects.some((project) => videoRequested((project.use as { video?: unknown }).video));
  if (wantsVideo && !playwrightCanRecordVideo({ env: readRunEnvironment().browser })) {
    markVideoUnavailable();
    notices.push(VIDEO_OFF_NOTICE);
  }
  if (notices.length > 0) printLines(notices.map((notice) => `[e2e] ${notice}`));
  return { notices };
}
