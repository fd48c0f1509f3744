/**
 * When an attempt records video and when the recording is kept, as Playwright Test decides it
 * for its own `page` (`use.video`): the engine records through the host delegate
 * (`HostServices.recording`), so the host applies the same modes to what it gets back.
 */

/** The video modes of `use.video` (a mode, or `{ mode, size }`). */
export type VideoMode = 'off' | 'on' | 'retain-on-failure' | 'on-first-retry' | 'retain-on-first-failure' | 'on-all-retries' | 'retain-on-failure-and-retries';

/** The mode and size `use.video` asks for. */
export function videoSettingsOf(video: unknown): { mode: VideoMode | string; size?: { width: number; height: number } } {
  if (video === undefined || video === null || video === false) return { mode: 'off' };
  if (typeof video === 'string') return { mode: video === 'retry-with-video' ? 'on-first-retry' : video };
  const { mode, size } = video as { mode?: unknown; size?: { width: number; height: number } };
  const named = typeof mode === 'string' ? mode : 'off';
  return { mode: named === 'retry-with-video' ? 'on-first-retry' : named, ...(size === undefined ? {} : { size }) };
}

/** True when the attempt (retry `retry`) records video. */
export function capturesVideo(mode: string, retry: number): boolean {
  switch (mode) {
    case 'on':
    case 'retain-on-failure':
    case 'retain-on-failure-and-retries':
      return true;
    case 'on-first-retry':
      return retry === 1;
    case 'on-all-retries':
      return retry > 0;
    case 'retain-on-first-failure':
      return retry === 0;
    default:
      return false;
  }
}

/** True when the recording of a finished attempt is kept and attached. */
export function keepsVideo(mode: string, attempt: { failed: boolean; retry: number }): boolean {
  switch (mode) {
    case 'on':
    case 'on-first-retry':
    case 'on-all-retries':
      return true;
    case 'retain-on-failure':
    case 'retain-on-first-failure':
      return attempt.failed;
    case 'retain-on-failure-and-retries':
      return attempt.failed || attempt.retry > 0;
    default:
      return false;
  }
}
