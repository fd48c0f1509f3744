/**
 * The `screen` fixture is the attempt's Playwright `Page` (DESIGN §2), but Playwright Test
 * already has an option named `screen` (the emulated `window.screen` size) that the browser
 * context reads while it is created, before any page exists. A fixture that depended on
 * `page` would form a cycle. So `screen` is a handle: while the context is created it reads
 * as the screen size (the viewport, Playwright's own default), and from then on every
 * property comes from the attempt's page.
 */
import type { Page } from '@playwright/test';
import { E2EError } from '../errors/index.js';

/** The size the context is created with. */
export interface ScreenSize {
  width: number;
  height: number;
}

/** Viewport size Playwright Test uses when none is configured. */
const DEFAULT_SIZE: ScreenSize = { width: 1280, height: 720 };

/** A Page-shaped handle that forwards to `currentPage()`. */
export function createScreenHandle(size: ScreenSize | null | undefined, currentPage: () => Page | undefined): Page {
  const own: ScreenSize = { width: size?.width ?? DEFAULT_SIZE.width, height: size?.height ?? DEFAULT_SIZE.height };
  const page = (): Page => {
    const current = currentPage();
    if (current === undefined) throw new E2EError('INVALID_STATE', '`screen` is used before the page of the test exists; use it inside the test body.');
    return current;
  };
  const handle = new Proxy(own, {
    get(target, property) {
      if (property === 'width' || property === 'height') return target[property];
      const current = page();
      const value: unknown = Reflect.get(current, property, current);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(current) : value;
    },
    has(target, property) {
      return property in target || property in page();
    },
    getPrototypeOf() {
      return Object.getPrototypeOf(page()) as object | null;
    },
  });
  return handle as unknown as Page;
}
