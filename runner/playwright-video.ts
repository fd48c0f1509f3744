/**
 * Whether the host's Playwright can record video (`use.video`): it renders with its own ffmpeg
 * build (`npx playwright install ffmpeg`), never a system ffmpeg, and without it every page of
 * a video run fails. Configuration arrives as arguments (STYLE 9).
 */
import { accessSync, constants, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** True when `path` is an executable regular file. */
function isExecutableFile(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The names of Playwright's ffmpeg build per platform. */
const FFMPEG_NAMES = ['ffmpeg-linux', 'ffmpeg-mac', 'ffmpeg-win64.exe'];

/** Playwright's browser folder: `PLAYWRIGHT_BROWSERS_PATH`, else its per-user cache folder. */
function playwrightBrowsersFolder(env: Readonly<Record<string, string | undefined>>): string {
  const configured = env['PLAYWRIGHT_BROWSERS_PATH']?.trim();
  if (configured !== undefined && configured !== '' && configured !== '0') return configured;
  const home = env['HOME'] ?? homedir();
  if (process.platform === 'darwin') return join(home, 'Library', 'Caches', 'ms-playwright');
  if (process.platform === 'win32') return join(env['LOCALAPPDATA'] ?? join(home, 'AppData', 'Local'), 'ms-playwright');
  return join(env['XDG_CACHE_HOME'] ?? join(home, '.cache'), 'ms-playwright');
}

/**
 * True when Playwright can record video: it renders with its own ffmpeg build (`npx playwright
 * install ffmpeg`), never a system ffmpeg. Without it every page of a `video: 'on'` run fails.
 */
export function playwrightCanRecordVideo(options: { env?: Readonly<Record<string, string | undefined>>; isExecutable?: (path: string) => boolean } = {}): boolean {
  const isExecutable = options.isExecutable ?? isExecutableFile;
  const folder = playwrightBrowsersFolder(options.env ?? {});
  let names: string[];
  try {
    names = readdirSync(folder).filter((name) => name.startsWith('ffmpeg'));
  } catch {
    return false;
  }
  return names.some((name) => FFMPEG_NAMES.some((binary) => isExecutable(join(folder, name, binary))));
}
