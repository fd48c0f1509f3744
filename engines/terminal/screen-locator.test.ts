import { describe, expect, it } from 'vitest';
import type { ScreenNode } from '../../contract/engine.js';
import { describeSteps, nodeText, resolveSteps, selectorOf, type LocatorStep } from './screen-locator.js';

function node(id: string, role: string, name: string, children: ScreenNode[] = [], states: ScreenNode['states'] = []): ScreenNode {
  return { id, role, name, states, depth: 0, children };
}

const SCREEN = node('root', 'document', 'Coffee', [
  node('t1', 'dialog', 'Coffee', [
    node('t2', 'text', 'Extras for your Latte'),
    node('t3', 'group', 'Extras for your Latte', [node('t4', 'checkbox', 'Oat milk', [], ['checked', 'focused']), node('t5', 'checkbox', 'Extra shot'), node('t6', 'checkbox', 'Cinnamon')]),
    node('t7', 'button', 'OK'),
  ]),
  node('t8', 'text', 'Space tick · Tab to OK · Enter go on'),
]);

const ids = (steps: LocatorStep[]): string[] => resolveSteps(SCREEN, steps).map((found) => found.id);

describe('terminal locators on a node tree', () => {
  it('finds by role with Playwright name rules: substring and case folded, or exact', () => {
    expect(ids([{ kind: 'role', role: 'checkbox', options: {} }])).toEqual(['t4', 't5', 't6']);
    expect(ids([{ kind: 'role', role: 'checkbox', options: { name: 'oat' } }])).toEqual(['t4']);
    expect(ids([{ kind: 'role', role: 'checkbox', options: { name: 'oat', exact: true } }])).toEqual([]);
    expect(ids([{ kind: 'role', role: 'checkbox', options: { name: /^Extra/ } }])).toEqual(['t5']);
    expect(ids([{ kind: 'role', role: 'checkbox', options: { checked: false } }])).toEqual(['t5', 't6']);
  });

  it('finds lines by text (leaves only), fields and marks by label, and chains within a region', () => {
    expect(ids([{ kind: 'text', text: 'latte', exact: false }])).toEqual(['t2']);
    expect(ids([{ kind: 'text', text: 'OK', exact: true }])).toEqual(['t7']);
    expect(ids([{ kind: 'label', text: 'Cinnamon', exact: false }])).toEqual(['t6']);
    expect(ids([{ kind: 'role', role: 'group', options: {} }, { kind: 'role', role: 'checkbox', options: {} }, { kind: 'nth', index: -1 }])).toEqual(['t6']);
    expect(ids([{ kind: 'role', role: 'checkbox', options: {} }, { kind: 'filter', hasNotText: 'milk' }, { kind: 'nth', index: 0 }])).toEqual(['t5']);
    expect(ids([{ kind: 'root' }])).toEqual(['root']);
  });

  it('reads a region as the lines of its leaves', () => {
    expect(nodeText(SCREEN.children[0]!)).toBe('Extras for your Latte\nOat milk\nExtra shot\nCinnamon\nOK');
  });

  it('describes a locator as a Playwright user writes it, and in Playwright selector syntax for the report', () => {
    const steps: LocatorStep[] = [{ kind: 'role', role: 'menuitem', options: { name: 'Banana', exact: true } }, { kind: 'nth', index: 0 }];
    expect(describeSteps(steps)).toBe("getByRole('menuitem', { name: 'Banana', exact: true }).first()");
    expect(selectorOf(steps)).toBe('internal:role=menuitem[name="Banana"s] >> nth=0');
    expect(selectorOf([{ kind: 'text', text: /placed: yes/i, exact: false }])).toBe('internal:text=/placed: yes/i');
  });
});
