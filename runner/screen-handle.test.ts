import { describe, expect, it } from 'vitest';
import type { EngineInstance } from '../contract/engine.js';
import { createScreenHandle } from './screen-handle.js';

class Page {
  url(): string {
    return this === undefined ? '' : 'http://127.0.0.1/products';
  }
}

describe('the screen handle', () => {
  it("gives the screen's own class, unbound, so a matcher that checks constructor.name sees Page, and binds its methods", () => {
    const page = new Page();
    const handle = createScreenHandle(undefined, () => ({ engine: {} as EngineInstance, screen: page }));
    expect(handle.constructor).toBe(Page);
    expect(handle.constructor.name).toBe('Page');
    const url = handle.url;
    expect(url()).toBe('http://127.0.0.1/products');
  });
});
