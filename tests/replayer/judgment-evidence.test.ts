import { describe, expect, it } from 'vitest';
import { checkEvidence } from '../../replayer/check-evidence.js';
import { node, screen } from '../support/hand-built-tree.js';
import { describeEvidenceCheck } from '../../semantics/describe-evidence.js';
import { buildJudgmentEvidence, isCountQuestion, type JudgmentEvidenceInput } from '../../recorder/judgment-evidence.js';

const URL_NOW = 'http://127.0.0.1:4173/orders/123?tab=open';

function build(tree: ReturnType<typeof screen>, nodeIds: string[], overrides: Partial<JudgmentEvidenceInput> = {}) {
  return buildJudgmentEvidence({ kind: 'assert', question: 'the order shows its items', tree, url: URL_NOW, nodeIds, typedValues: [], ...overrides });
}

function sentences(result: ReturnType<typeof build>): string[] {
  return result.kind === 'evidence' ? result.checks.map(describeEvidenceCheck) : [result.reason];
}

describe('judgment evidence', () => {
  it('reads count questions from numbers and quantifiers', () => {
    expect(['only one todo remains open', 'no todo is completed', 'there are 3 items', 'every row is paid'].map(isCountQuestion)).toEqual([true, true, true, true]);
    expect(['Buy milk is completed', 'the status says Saved'].map(isCountQuestion)).toEqual([false, false]);
  });

  it('never rests on a field showing typed text or on a password field', () => {
    const tree = screen(node('textbox', 'Email', { id: 'e', value: 'jane@example.com' }), node('textbox', 'Password', { id: 'p', value: 'x', states: ['secure'] }));
    expect(sentences(build(tree, ['e', 'p'], { typedValues: ['jane@example.com'] }))).toEqual([
      'no cited node can be checked without a model (textbox "Email" shows text this attempt typed; textbox "Password" is a password field)',
    ]);
    expect(sentences(build(tree, ['e']))).toEqual(['expect textbox "Email" with value "jane@example.com" present']);
  });

  it('records unique() values as placeholders and fills them in on replay', () => {
    const tree = screen(node('status', '', { id: 's', text: 'Welcome jane-7f3k2' }));
    const built = build(tree, ['s'], { uniqueValues: { user: 'jane-7f3k2' } });
    expect(sentences(built)).toEqual(['expect status with text "Welcome {unique:user}" present']);
    if (built.kind !== 'evidence') return;
    const entry = { route: built.route, evidence: built.checks };
    const next = screen(node('status', '', { text: 'Welcome joe-99x1q' }));
    expect(checkEvidence(entry, { tree: next, url: URL_NOW }, { user: 'joe-99x1q' })).toEqual({ ok: true });
    expect(checkEvidence(entry, { tree: next, url: URL_NOW }, { user: 'jane-7f3k2' })).toMatchObject({ ok: false });
  });

  it('reads volatile parts as placeholders, but keeps counts and amounts', () => {
    const tree = screen(node('status', '', { id: 's', text: 'Order #4411 placed at 10:30 for $19.99' }));
    const built = build(tree, ['s']);
    if (built.kind !== 'evidence') throw new Error(built.reason);
    const entry = { route: built.route, evidence: built.checks };
    const later = screen(node('status', '', { text: 'Order #4502 placed at 11:05 for $19.99' }));
    expect(checkEvidence(entry, { tree: later, url: 'http://127.0.0.1:4173/orders/456?tab=open' })).toEqual({ ok: true });
    const dearer = screen(node('status', '', { text: 'Order #4502 placed at 11:05 for $21.99' }));
    expect(checkEvidence(entry, { tree: dearer, url: URL_NOW })).toMatchObject({ ok: false });
    expect(checkEvidence(entry, { tree: later, url: 'http://127.0.0.1:4173/orders/456?tab=closed' })).toEqual({
      ok: false,
      detail: 'route query differs: expected http://127.0.0.1:4173/orders/{id}?tab=open, found http://127.0.0.1:4173/orders/{id}?tab=closed',
    });
  });

  it('is not cacheable when a cited id is not on the screen or the checks would be too many', () => {
    const tree = screen(node('list', 'Rows', Array.from({ length: 40 }, (_, index) => node('listitem', `Row ${index}`, { id: `r${index}` }))));
    expect(sentences(build(tree, ['n404']))).toEqual(['the cited node n404 is not on the judged screen']);
    expect(sentences(build(tree, Array.from({ length: 40 }, (_, index) => `r${index}`)))).toEqual(['the evidence needs 40 checks (at most 32 are recorded)']);
  });
});
