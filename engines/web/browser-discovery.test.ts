import { describe, expect, it } from 'vitest';
import { isE2EError } from '../../errors/index.js';
import { CHROMIUM_LAUNCH_ARGUMENTS, findChromium, resolveLaunchOptions } from './browser-discovery.js';

/** A file system where only `present` paths are executables. */
const only =
  (...present: string[]) =>
  (path: string): boolean =>
    present.includes(path);

describe('findChromium', () => {
  it('prefers E2E_CHROMIUM_PATH over everything else', () => {
    const found = findChromium({
      env: { E2E_CHROMIUM_PATH: '/opt/chrome/chrome', PATH: '/usr/bin' },
      playwrightExecutablePath: () => '/cache/ms-playwright/chrome',
      isExecutable: only('/opt/chrome/chrome', '/cache/ms-playwright/chrome', '/usr/bin/chromium'),
    });
    expect(found).toEqual({ executablePath: '/opt/chrome/chrome', source: 'E2E_CHROMIUM_PATH' });
  });

  it('refuses an E2E_CHROMIUM_PATH that is not an executable instead of silently using another browser', () => {
    let error: unknown;
    try {
      findChromium({ env: { E2E_CHROMIUM_PATH: '/nope/chrome' }, isExecutable: only('/usr/bin/chromium') });
    } catch (caught) {
      error = caught;
    }
    expect(isE2EError(error) && error.code).toBe('ENVIRONMENT_UNAVAILABLE');
    expect(String((error as Error).message)).toContain('/nope/chrome');
  });

  it("uses Playwright's installed browser next, when its file exists", () => {
    const found = findChromium({ env: { PATH: '/usr/bin' }, playwrightExecutablePath: () => '/cache/chrome', isExecutable: only('/cache/chrome', '/usr/bin/chromium') });
    expect(found).toEqual({ executablePath: '/cache/chrome', source: 'playwright' });
  });

  it('falls back to chromium, chromium-browser, google-chrome on PATH, in that order', () => {
    const options = { playwrightExecutablePath: () => '/cache/missing', env: { PATH: '/a:/b' } };
    expect(findChromium({ ...options, isExecutable: only('/b/chromium-browser', '/a/google-chrome') })).toEqual({ executablePath: '/b/chromium-browser', source: 'PATH' });
    expect(findChromium({ ...options, isExecutable: only('/b/chromium', '/a/chromium-browser') })).toEqual({ executablePath: '/b/chromium', source: 'PATH' });
  });

  it('looks for a headless shell on PATH first when the run is headless, and never when it shows its window', () => {
    const options = { playwrightExecutablePath: () => '/cache/missing', env: { PATH: '/a:/b' } };
    const isExecutable = only('/a/chromium', '/b/chromium-headless-shell', '/a/chrome-headless-shell');
    expect(findChromium({ ...options, isExecutable })).toEqual({ executablePath: '/b/chromium-headless-shell', source: 'PATH' });
    expect(findChromium({ ...options, isExecutable, headless: true })).toEqual({ executablePath: '/b/chromium-headless-shell', source: 'PATH' });
    expect(findChromium({ ...options, isExecutable: only('/a/chromium', '/a/chrome-headless-shell') })).toEqual({ executablePath: '/a/chrome-headless-shell', source: 'PATH' });
    expect(findChromium({ ...options, isExecutable, headless: false })).toEqual({ executablePath: '/a/chromium', source: 'PATH' });
    expect(() => findChromium({ ...options, isExecutable: only('/b/chromium-headless-shell'), headless: false })).toThrow(/No Chromium found/);
  });

  it('names all three places and the fix when nothing is found', () => {
    let error: unknown;
    try {
      findChromium({ env: { PATH: '/empty' }, playwrightExecutablePath: () => undefined, isExecutable: only() });
    } catch (caught) {
      error = caught;
    }
    expect(isE2EError(error) && error.code).toBe('ENVIRONMENT_UNAVAILABLE');
    const message = String((error as Error).message);
    for (const part of ['E2E_CHROMIUM_PATH', 'Playwright', 'chromium, chromium-browser, google-chrome', 'PATH', 'apt-get install -y chromium']) expect(message).toContain(part);
  });

  it('finds the real browser of this machine', () => {
    const found = findChromium({ env: { PATH: process.env['PATH'] ?? '' } });
    expect(found.executablePath).toMatch(/chrom/);
  });
});

describe('resolveLaunchOptions', () => {
  it('resolves a shown window to a full Chromium, never to a headless shell', () => {
    const options = resolveLaunchOptions({ env: { PATH: '/a' }, playwrightExecutablePath: () => undefined, isExecutable: only('/a/chromium', '/a/chromium-headless-shell'), headless: false });
    expect(options).toMatchObject({ executablePath: '/a/chromium', headless: false });
    expect(resolveLaunchOptions({ env: { PATH: '/a' }, playwrightExecutablePath: () => undefined, isExecutable: only('/a/chromium', '/a/chromium-headless-shell') })).toMatchObject({ executablePath: '/a/chromium-headless-shell', headless: true });
  });

  it('adds the headless-friendly flags and keeps headless by default', () => {
    const options = resolveLaunchOptions({ env: { PATH: '/a' }, playwrightExecutablePath: () => undefined, isExecutable: only('/a/chromium') });
    expect(options).toEqual({ executablePath: '/a/chromium', args: [...CHROMIUM_LAUNCH_ARGUMENTS], headless: true });
    expect(options.args).toEqual(['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync']);
  });
});
