import { describe, expect, it } from 'vitest';
import type { ActEntry } from '../cache-format/entry.js';
import type { Rect, ScreenNode } from '../contract/engine.js';
import { indexTree } from '../semantics/tree-index.js';
import { node, screen } from '../tests/support/hand-built-tree.js';
import { coveringOverlay, knownContainers, nameObstruction } from './obstruction.js';

function at(tree: ScreenNode, rect: Rect): ScreenNode {
  tree.rect = rect;
  return tree;
}

const WHOLE_PAGE: Rect = { x: 0, y: 0, width: 1280, height: 720 };
const ADD_BOX: Rect = { x: 100, y: 100, width: 60, height: 30 };

function add(): ScreenNode {
  return at(node('button', 'Add', { id: 'add' }), ADD_BOX);
}

function whatsNew(rect: Rect = WHOLE_PAGE): ScreenNode {
  return at(node('dialog', "What's new", { id: 'news' }, [node('button', 'Got it', { id: 'got-it' })]), rect);
}

const nothingKnown = new Set<string>();

describe('coveringOverlay', () => {
  it('names a dialog after the control whose box covers it', () => {
    const index = indexTree(screen(at(node('main', 'App', [add()]), WHOLE_PAGE), whatsNew()));
    expect(coveringOverlay(index, 'add', nothingKnown)).toBe('dialog "What\'s new"');
  });

  it('leaves a dialog alone that does not cover the control, holds it, or comes before it', () => {
    expect(coveringOverlay(indexTree(screen(add(), whatsNew({ x: 600, y: 400, width: 300, height: 200 }))), 'add', nothingKnown)).toBeUndefined();
    expect(coveringOverlay(indexTree(screen(at(node('dialog', 'Cart', [add()]), WHOLE_PAGE))), 'add', nothingKnown)).toBeUndefined();
    expect(coveringOverlay(indexTree(screen(whatsNew(), add())), 'add', nothingKnown)).toBeUndefined();
  });

  it('leaves a dialog alone that the recording had', () => {
    const entry: Pick<ActEntry, 'actions' | 'appeared' | 'gone'> = {
      actions: [{ verb: 'tap', target: { role: 'button', name: 'Got it', container: { role: 'dialog', name: "What's new" }, twinIndex: 0, twinCount: 1 } }],
      appeared: [],
      gone: [],
    };
    expect(coveringOverlay(indexTree(screen(add(), whatsNew())), 'add', knownContainers(entry))).toBeUndefined();
  });
});

describe('knownContainers', () => {
  it('gathers the containers of targets, dismissals and end checks, and dialogs the end checks name', () => {
    const known = knownContainers({
      actions: [{ verb: 'tap', target: { role: 'button', name: 'OK', container: { role: 'form', name: 'Sign in' }, twinIndex: 0, twinCount: 1 }, dismisses: { role: 'region', name: 'Sale' } }],
      appeared: [{ role: 'dialog', name: 'Saved', states: [] }],
      gone: [{ role: 'button', name: 'Close', container: { role: 'alertdialog', name: 'Oops' }, states: [] }],
    });
    expect([...known].map((key) => key.split('\u0000')[0])).toEqual(['form', 'region', 'dialog', 'alertdialog']);
  });
});

describe('naming what the engine says is in the way', () => {
  /** What a web engine's typed detail says for a snippet without a role (engines/web/action-errors.ts reads Playwright's words). */
  const by = (description: string) => ({ description });

  it('names the landmark covering the control, even one placed before it', () => {
    const banner = at(node('region', 'Spring sale', [at(node('text', '', { text: 'Half price' }), { x: 0, y: 80, width: 1280, height: 80 })]), { x: 0, y: 0, width: 1280, height: 200 });
    expect(nameObstruction(indexTree(screen(add(), banner)), 'add', by('<p>Half price</p>'), nothingKnown)).toBe('region "Spring sale"');
    expect(nameObstruction(indexTree(screen(banner, add())), 'add', by('<section>…</section>'), nothingKnown)).toBe('region "Spring sale"');
  });

  it('names a dialog the recording never had wherever its box is, since a modal one takes the pointer everywhere', () => {
    const index = indexTree(screen(add(), whatsNew({ x: 600, y: 400, width: 300, height: 200 })));
    expect(nameObstruction(index, 'add', { role: 'dialog', description: '<dialog open="">…</dialog>' }, nothingKnown)).toBe('dialog "What\'s new"');
    expect(nameObstruction(index, 'add', { role: 'dialog', description: '<dialog open="">…</dialog>' }, new Set([`dialog\u0000what's new`]))).toBe('<dialog open="">…</dialog>');
  });

  it("falls back to the role and name the engine gave, then to the engine's description", () => {
    const index = indexTree(screen(add()));
    expect(nameObstruction(index, 'add', { role: 'dialog', name: 'Cookie consent', description: '<div role="dialog" aria-label="Cookie consent" class="cc">…</div>' }, nothingKnown)).toBe('dialog "Cookie consent"');
    expect(nameObstruction(index, 'add', { role: 'dialog', name: 'Tips', description: '<dialog open="" aria-label="Tips">…</dialog>' }, nothingKnown)).toBe('dialog "Tips"');
    expect(nameObstruction(index, 'add', by('<div id="veil" class="backdrop"></div>'), nothingKnown)).toBe('<div id="veil" class="backdrop"></div>');
    expect(nameObstruction(index, 'add', by(`<div>${'x'.repeat(200)}</div>`), nothingKnown)).toBe(`<div>${'x'.repeat(115)}…`);
  });
});
