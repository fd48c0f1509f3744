/**
 * Finding a Chromium to drive (DESIGN §8): `E2E_CHROMIUM_PATH`, then Playwright's installed
 * browsers, then a system Chromium on `PATH`. For a headless run the system Chromium is first
 * looked for as a headless shell (Debian's `chromium-headless-shell`), as Playwright itself
 * runs headless on its own headless shell: the same Blink and V8 without the desktop browser
 * around them, about a third of the CPU per page. Configuration arrives as arguments: this
 * module never reads `process.env` (STYLE 9); the CLI or runner entry passes its environment in.
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { chromium } from '@playwright/test';
import { E2EError } from '../../errors/index.js';

/** Flags every Chromium we launch gets: headless-friendly, quiet, no background traffic. */
export const CHROMIUM_LAUNCH_ARGUMENTS: readonly string[] = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** Names of a system Chromium looked up on `PATH`, in order. */
export const SYSTEM_CHROMIUM_NAMES: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome'];

/** Names of a headless-only Chromium looked up on `PATH` before {@link SYSTEM_CHROMIUM_NAMES} when the run is headless. */
export const HEADLESS_SHELL_NAMES: readonly string[] = ['chromium-headless-shell', 'chrome-headless-shell'];

/** Used when the caller passes no `PATH`: the usual system binary folders. */
const DEFAULT_SEARCH_PATH = ['/usr/local/sbin', '/usr/local/bin', '/usr/sbin', '/usr/bin', '/sbin', '/bin', '/snap/bin'].join(delimiter);

/** Where a browser was found. */
export type ChromiumSource = 'E2E_CHROMIUM_PATH' | 'playwright' | 'PATH';

/** A found browser. */
export interface ChromiumLocation {
  executablePath: string;
  source: ChromiumSource;
}

/** Inputs of {@link findChromium}; every one has a default so tests can fake the edges. */
export interface FindChromiumOptions {
  /** The environment to read `E2E_CHROMIUM_PATH` and `PATH` from (the caller's `process.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Playwright's own browser path, when one is expected (defaults to `chromium.executablePath()`). */
  playwrightExecutablePath?: () => string | undefined;
  /** True when the file exists and can be executed (defaults to a file-system check). */
  isExecutable?: (path: string) => boolean;
  /** False when the browser must show its window (`--headed`): a headless shell cannot. Default true. */
  headless?: boolean;
}

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

/** Playwright's expected Chromium path; it throws when Playwright has no entry for this platform. */
function playwrightChromiumPath(): string | undefined {
  try {
    return chromium.executablePath();
  } catch {
    return undefined;
  }
}

/**
 * Find a Chromium executable: `env.E2E_CHROMIUM_PATH`, Playwright's installed browser, then on
 * `env.PATH` a headless shell (headless runs only), `chromium`, `chromium-browser`, `google-chrome`.
 * @throws E2EError `ENVIRONMENT_UNAVAILABLE` naming the three places and the fix.
 */
export function findChromium(options: FindChromiumOptions = {}): ChromiumLocation {
  const env = options.env ?? {};
  const isExecutable = options.isExecutable ?? isExecutableFile;
  const configured = env['E2E_CHROMIUM_PATH']?.trim();
  if (configured !== undefined && configured !== '') {
    if (isExecutable(configured)) return { executablePath: configured, source: 'E2E_CHROMIUM_PATH' };
    throw new E2EError(
      'ENVIRONMENT_UNAVAILABLE',
      `E2E_CHROMIUM_PATH points to "${configured}", which is not an executable file. Fix the path or unset it to use a discovered browser.`,
    );
  }
  const bundled = (options.playwrightExecutablePath ?? playwrightChromiumPath)();
  if (bundled !== undefined && bundled !== '' && isExecutable(bundled)) return { executablePath: bundled, source: 'playwright' };
  const folders = (env['PATH'] ?? DEFAULT_SEARCH_PATH).split(delimiter).filter((folder) => folder !== '');
  const names = options.headless === false ? SYSTEM_CHROMIUM_NAMES : [...HEADLESS_SHELL_NAMES, ...SYSTEM_CHROMIUM_NAMES];
  for (const name of names) {
    for (const folder of folders) {
      const candidate = join(folder, name);
      if (isExecutable(candidate)) return { executablePath: candidate, source: 'PATH' };
    }
  }
  throw new E2EError(
    'ENVIRONMENT_UNAVAILABLE',
    'No Chromium found. Looked at E2E_CHROMIUM_PATH (unset), Playwright\'s installed browsers (`npx playwright install chromium`), ' +
      `and ${names.join(', ')} on PATH. Install one with \`apt-get install -y chromium\` or set E2E_CHROMIUM_PATH to a Chromium executable.`,
  );
}

/** What Playwright's `launch` (or Playwright Test's `use.launchOptions`) needs from us. */
export interface ChromiumLaunchOptions {
  executablePath: string;
  args: string[];
  headless: boolean;
}

/** Launch options for a found browser: its path, our flags, headless unless told otherwise. */
export function resolveLaunchOptions(options: FindChromiumOptions = {}): ChromiumLaunchOptions {
  const headless = options.headless ?? true;
  const location = findChromium({ ...options, headless });
  return { executablePath: location.executablePath, args: [...CHROMIUM_LAUNCH_ARGUMENTS], headless };
}
