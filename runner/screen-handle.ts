/**
 * The `screen` fixture is what the attempt's engine gives as its screen (its host delegate's
 * `screen`): the Playwright `Page` on the web (DESIGN §2). But Playwright Test already has an
 * option named `screen` (the emulated `window.screen` size) that a browser context reads while
 * it is created, before any page exists, and the attempt's engine starts after Playwright's own
 * fixtures. So `screen` is a handle: it reads as the screen size (the viewport, Playwright's own
 * default) for a context being created, and from then on every property comes from the
 * attempt's screen, read anew on each use (a restart replaces the page).
 */
import type { Page } from '@playwright/test';
import { E2EError } from '../errors/index.js';
import type { EngineInstance } from '../contract/engine.js';

/** The size the context is created with. */
export interface ScreenSize {
  width: number;
  height: number;
}

/** The attempt behind the handle: its engine and the screen that engine gives now. */
export interface CurrentScreen {
  engine: EngineInstance;
  screen: unknown;
}

/** Viewport size Playwright Test uses when none is configured. */
const DEFAULT_SIZE: ScreenSize = { width: 1280, height: 720 };

/** True for a Playwright page (duck-typed by its public API: works across Playwright copies). */
export function isPlaywrightPage(value: unknown): value is Page {
  return (
    typeof value === 'object' &&
    value !== null &&
    typeof (value as { goto?: unknown }).goto === 'function' &&
    typeof (value as { locator?: unknown }).locator === 'function' &&
    typeof (value as { context?: unknown }).context === 'function'
  );
}

/** A handle that forwards to the attempt's screen (typed as the web's `Page`, what most engines' users have). */
export function createScreenHandle(size: ScreenSize | null | undefined, current: () => CurrentScreen | undefined): Page {
  const own: ScreenSize = { width: size?.width ?? DEFAULT_SIZE.width, height: size?.height ?? DEFAULT_SIZE.height };
  const screen = (): object => {
    const attempt = current();
    if (attempt === undefined) throw new E2EError('INVALID_STATE', '`screen` is used before the attempt of the test started; use it inside the test body.');
    const value = attempt.screen;
    if (typeof value !== 'object' || value === null) throw new E2EError('UNSUPPORTED_CAPABILITY', "This target's engine gives no `screen`; use `agent` and `app` instead.");
    return value;
  };
  const handle = new Proxy(own, {
    get(target, property) {
      if (property === 'width' || property === 'height') return target[property];
      const value = screen();
      const member: unknown = Reflect.get(value, property, value);
      // Methods are bound to the screen; its class is not (a bound class is named "bound Page", and
      // Playwright's older matchers check `constructor.name`: `expect(screen).toHaveURL` on 1.56).
      return typeof member === 'function' && property !== 'constructor' ? (member as (...args: unknown[]) => unknown).bind(value) : member;
    },
    has(target, property) {
      return property in target || property in screen();
    },
    getPrototypeOf() {
      return Object.getPrototypeOf(screen()) as object | null;
    },
  });
  return handle as unknown as Page;
}
