import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { EngineInstance } from '../../../contract/engine.js';
import { diffScreens, renderScreen, shapeOf } from '../../../step/screen-text.js';
import { settleAfterAction } from '../../../step/settle.js';
import { compareGolden } from '../../support/golden-file.js';
import { allNodes, nodeNamed } from '../../support/screen-tree.js';
import { webEngineOnFolder } from '../../support/web-engine-on-folder.js';
import { surfaceOf } from '../../../engines/web/index.js';
import { indexTree } from '../../../semantics/tree-index.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'engines', 'web', 'fixtures');
const UPDATE_GOLDEN = process.env['UPDATE_GOLDEN'] === '1';

// One browser for the whole file (the engine shares it across attempts).
const live = webEngineOnFolder(FIXTURES);
const { engine } = live;

/**
 * The names of the rows of words.html read when one text is included, beyond those read anyway
 * (the first rows, those in view, the last).
 */
function rowsReadFor(instance: EngineInstance): (text: string) => Promise<string[]> {
  return async (text) => {
    const observation = await instance.observe({ bounds: { maxRun: 100 }, include: { text: [text] } });
    const rows = nodeNamed(observation.root, 'list', 'Rows').children.filter((child) => child.role === 'listitem');
    return rows.map((row) => row.name).filter((name) => !/^Row (\d+)$/.test(name) || Number(name.slice(4)) > 200 && Number(name.slice(4)) < 2_990);
  };
}

/** Start an attempt and open a fixture page, waiting for iframes too. */
async function open(path: string): Promise<EngineInstance> {
  const attempt = await live.start();
  await attempt.session.open(live.url + path);
  await surfaceOf(engine).page().waitForLoadState('load');
  return attempt;
}

describe('web engine observation', () => {
  it('reads a run longer than the bound in part: its first and last items, those in view, the focus and what is asked for', async () => {
    const instance = await open('huge.html?count=5000&field=3000');
    const bounded = await instance.observe({ bounds: { maxRun: 100 } });
    const nodes = allNodes(bounded.root);
    const log = nodeNamed(bounded.root, 'list', 'Log');
    const names = log.children.map((child) => child.name);
    expect(names.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, index) => `Item ${index + 1}`));
    expect(names.slice(-5)).toEqual(['Item 4,996', 'Item 4,997', 'Item 4,998', 'Item 4,999', 'Item 5,000']);
    expect(nodeNamed(bounded.root, 'textbox', 'Note').states).toContain('focused');
    expect(names).toContain('Item 3,000');
    const placeholders = log.children.filter((child) => child.role === 'omitted');
    expect(placeholders.length).toBeGreaterThanOrEqual(2);
    expect(placeholders[0]!.omitted).toEqual(expect.objectContaining({ role: 'listitem', first: expect.stringMatching(/^Item \d/) }));
    expect(placeholders.reduce((total, placeholder) => total + placeholder.omitted!.count, 0) + log.children.length - placeholders.length).toBe(5_000);
    expect(nodes.length).toBeLessThan(200);
    expect(bounded.viewport).toEqual({ width: expect.any(Number), height: expect.any(Number) });
    expect(nodeNamed(bounded.root, 'button', 'Last')).toBeDefined();

    const found = await instance.observe({ bounds: { maxRun: 100 }, include: { text: ['ITEM   4,321'] } });
    const item = nodeNamed(found.root, 'listitem', 'Item 4,321');
    // An id of the previous screen is read again in full on the next one.
    const again = await instance.observe({ bounds: { maxRun: 100 }, include: { ids: [item.id] } });
    expect(nodeNamed(again.root, 'listitem', 'Item 4,321').id).toBe(item.id);
    await instance.perform({ id: item.id }, { verb: 'tap' }, { timeoutMs: 10_000 });
    expect(allNodes((await instance.observe({ bounds: { maxRun: 100 } })).root).some((node) => node.text === 'Selected Item 4,321')).toBe(true);

    // More matches than the bound in one run: what is read says so.
    const many = await instance.observe({ bounds: { maxRun: 100 }, include: { text: ['item 1'] } });
    expect(many.includePartial).toBe(true);
    // Unbounded, the engine reads every item.
    expect(nodeNamed((await instance.observe()).root, 'list', 'Log').children).toHaveLength(5_000);
  });

  it('reads in full inside a long run exactly the rows whose words hold an included text, in whatever spacing, case, attribute, form value or script they hold it', async () => {
    const readFor = rowsReadFor(await open('words.html'));
    // As find compares: name, text, word attributes and form values (set from script too), case and spacing folded.
    expect(await readFor('quarterly report')).toEqual(['Quarterly REPORT draft', 'Quarterly report final', 'Row 1400', 'QUARTERLY report nested']);
    expect(await readFor('QUARTERLY')).toEqual(['Quarterly REPORT draft', 'Quarterly report final', 'Row 1400', 'QUARTERLY report nested', 'report']);
    expect(await readFor('report quarterly')).toEqual(['report']);
    // Lower case as JavaScript writes it: İ becomes i̇, a final Σ becomes ς.
    expect(await readFor('İSTANBUL office'.toLowerCase())).toEqual(['İSTANBUL office']);
    expect(await readFor('stanbul')).toEqual(['İSTANBUL office']);
    expect(await readFor('ΟΔΟΣ street'.toLowerCase())).toEqual(['ΟΔΟΣ street']);
    expect(await readFor('row 1800 quarterly')).toEqual([]);
  });

  it('reads the same rows whether the browser looks them up or each row is tested: quotes of both kinds, and a page whose document.evaluate lies', async () => {
    const instance = await open('words.html');
    const readFor = rowsReadFor(instance);
    // Both quote kinds in one text: the lookup quotes it piecewise.
    expect(await readFor(`o'brien said "hi"`)).toEqual([`O'Brien said "hi"`]);
    expect(await readFor(`O'BRIEN`)).toEqual([`O'Brien said "hi"`, `O'Brien`]);
    expect(await readFor('"hi"')).toEqual([`O'Brien said "hi"`]);
    // A page that replaced document.evaluate (here with one that finds nothing) is not asked: every row is tested.
    await surfaceOf(engine)
      .page()
      .evaluate(() => {
        document.evaluate = ((): XPathResult => ({ snapshotLength: 0, snapshotItem: () => null }) as unknown as XPathResult) as typeof document.evaluate;
      });
    expect(await readFor(`o'brien`)).toEqual([`O'Brien said "hi"`, `O'Brien`]);
    expect(await readFor('quarterly report')).toEqual(['Quarterly REPORT draft', 'Quarterly report final', 'Row 1400', 'QUARTERLY report nested']);
    expect(await readFor('stanbul')).toEqual(['İSTANBUL office']);
  });

  it('reads a long run alike whether its rows are all of one tag with nothing between them or are gone through one by one', async () => {
    const instance = await open('huge.html?count=3000&field=2000');
    const page = surfaceOf(engine).page();
    const read = async (text: string[], maxRun = 100): Promise<unknown[]> =>
      nodeNamed((await instance.observe({ bounds: { maxRun }, include: { text } })).root, 'list', 'Log').children.map((child) => ({ id: child.id, role: child.role, name: child.name, omitted: child.omitted }));
    // A few rows holding the words (also more than a bound of 5), more than the bound, the focused row's field, none.
    const asked: Array<[string[], number]> = [[['item 1,23'], 100], [['item 1,23'], 5], [['item 1'], 100], [['note'], 100], [[], 100]];
    const alone: unknown[][] = [];
    for (const [text, maxRun] of asked) alone.push(await read(text, maxRun));
    // Whitespace between the rows: the same run, read child by child.
    await page.evaluate(() => {
      const log = document.getElementById('log')!;
      for (const row of Array.from(log.children)) log.insertBefore(document.createTextNode('\n  '), row);
    });
    for (const [index, [text, maxRun]] of asked.entries()) expect(await read(text, maxRun)).toEqual(alone[index]);
    // A row whose tag differs only in case ends the run, as a row of another tag does: two runs, each with its first and last rows.
    await page.evaluate(() => {
      const log = document.getElementById('log')!;
      for (const space of Array.from(log.childNodes)) if (space.nodeType === 3) space.remove();
      log.children[1_500]!.replaceWith(document.createElementNS('http://www.w3.org/1999/xhtml', 'LI'));
    });
    const names = ((await read([])) as Array<{ name: string }>).map((row) => row.name);
    expect(names).toEqual(expect.arrayContaining(['Item 1,500', 'Item 1,502', 'Item 1,521', 'Item 3,000']));
    expect(names).not.toContain('Item 1,522');
  });

  it('reads again in full what a later change made to hold an included text, in the rows text or an attribute', async () => {
    const instance = await open('huge.html?count=5000');
    const include = { text: ['item 4,321'] };
    const names = async (): Promise<string[]> =>
      nodeNamed((await instance.observe({ bounds: { maxRun: 100 }, include })).root, 'list', 'Log').children.filter((child) => child.role === 'listitem' && /4,321/.test(child.name)).map((child) => child.name);
    expect(await names()).toEqual(['Item 4,321']);
    expect(await names()).toEqual(['Item 4,321']);
    const page = surfaceOf(engine).page();
    await page.evaluate(() => {
      document.getElementById('log')!.children[3_999]!.textContent = 'Item 4,321 again';
    });
    expect(await names()).toEqual(['Item 4,321 again', 'Item 4,321']);
    await page.evaluate(() => document.getElementById('log')!.children[2_999]!.setAttribute('aria-label', 'Item 4,321 labelled'));
    expect(await names()).toEqual(['Item 4,321 labelled', 'Item 4,321 again', 'Item 4,321']);
    await page.evaluate(() => {
      document.getElementById('log')!.children[3_999]!.textContent = 'Item 4,000';
    });
    expect(await names()).toEqual(['Item 4,321 labelled', 'Item 4,321']);
  });

  it('observes a page nested 5,000 deep down to its deepest button, and acts on it', async () => {
    const instance = await open('deep.html');
    const observation = await instance.observe();
    expect(observation.treeUnavailable).toBeUndefined();
    const deepest = nodeNamed(observation.root, 'button', 'Deepest');
    expect(deepest.depth).toBe(5_002);
    expect(nodeNamed(observation.root, 'group', 'Level 5000').children).toEqual([deepest]);
    await instance.perform({ id: deepest.id }, { verb: 'tap' }, { timeoutMs: 10_000 });
    expect(allNodes((await instance.observe()).root).some((node) => node.role === 'status' && node.text === 'Pressed the deepest button')).toBe(true);
  });

  it('renders the fixture page exactly as the golden screen', async () => {
    const instance = await open('screen.html');
    const observation = await instance.observe();
    const text = renderScreen(observation, { revision: 1 });
    const result = await compareGolden('screens/web-fixture.txt', text, { update: UPDATE_GOLDEN });
    if (result.kind === 'missing') throw new Error(`golden file ${result.path} is missing; run with UPDATE_GOLDEN=1`);
    if (result.kind === 'differs') expect(text + '\n').toBe(result.expected);
    expect(['matched', 'written']).toContain(result.kind);
    expect(observation.nodeCount).toBe(allNodes(observation.root).length);
  });

  it('leaves hidden elements out and keeps a visible child of a hidden parent', async () => {
    const instance = await open('screen.html');
    const text = renderScreen(await instance.observe(), { revision: 1 });
    for (const hidden of ['display none', 'visibility hidden', 'aria hidden', 'hidden attribute', 'zero size', 'Hidden until opened']) expect(text).not.toContain(hidden);
    expect(text).toContain('visible child');
  });

  it('includes open shadow roots with slotted content and same-origin iframe content under the iframe node', async () => {
    const instance = await open('screen.html');
    const { root } = await instance.observe();
    const card = allNodes(root).find((node) => node.testId === 'card');
    expect(card?.children.map((child) => `${child.role} ${child.name}`)).toEqual(['heading Slotted title', 'button Follow']);
    const frame = nodeNamed(root, 'iframe', 'Embedded form');
    expect(frame.children.map((child) => `${child.role} ${child.name}`)).toEqual(['textbox Coupon', 'button Apply']);
    const coupon = nodeNamed(root, 'textbox', 'Coupon');
    expect(coupon.value).toBe('SPRING');
    // Rects of iframe content are in top-level viewport coordinates.
    expect(coupon.rect?.y).toBeGreaterThanOrEqual(frame.rect?.y ?? Infinity);
  });

  it('never reads a password field: not in the tree, not in the text, even after typing', async () => {
    const instance = await open('screen.html');
    const password = nodeNamed((await instance.observe()).root, 'textbox', 'Password');
    expect(password.states).toContain('secure');
    expect(password.value).toBeUndefined();
    await instance.perform(password, { verb: 'type', value: 'typed-pass-789', replace: true }, { timeoutMs: 5000 });
    const observation = await instance.observe();
    const serialized = JSON.stringify(observation);
    const text = renderScreen(observation, { revision: 2 });
    for (const secret of ['hunter2-very-secret', 'typed-pass-789']) {
      expect(serialized).not.toContain(secret);
      expect(text).not.toContain(secret);
    }
    expect(text).toMatch(/#n\d+ textbox "Password" value=<secure> \[focused secure\]/);
  });

  it('shows a configured secret planted in page text as <secret:name>', async () => {
    const instance = await open('screen.html');
    const text = renderScreen(await instance.observe(), { revision: 1, secrets: new Map([['apiToken', 'tok-123456']]) });
    expect(text).toContain('contentinfo "" text="Token: <secret:apiToken>"');
    expect(text).not.toContain('tok-123456');
  });

  it('clips a long text inside a secret without leaving any piece of it on the screen', async () => {
    const secret = 'tok-9A8b7C6d5E';
    const instance = await open('screen.html');
    for (const kept of [2, 5, 9]) {
      await surfaceOf(engine).page().evaluate(({ text }) => {
        document.querySelector('footer')!.textContent = text;
      }, { text: `${'x'.repeat(159 - kept)}${secret} and more after the clip` });
      const text = renderScreen(await instance.observe(), { revision: 1, secrets: new Map([['apiToken', secret]]) });
      const shown = /contentinfo "" text="([^"]*)"/.exec(text)?.[1];
      // The clip kept `kept` characters of the secret: marked when they are a clipped start, else dropped.
      expect(shown).toMatch(kept >= 8 ? /^x+<secret:apiToken>…$/ : /^x+…$/);
    }
  });

  it('keeps ids of unchanged elements when a script re-renders a sibling list', async () => {
    const instance = await open('rerender.html');
    const before = await instance.observe();
    const stableBefore = ['Alpha', 'Beta'].map((name) => nodeNamed(before.root, 'listitem', name).id);
    const volatileBefore = nodeNamed(before.root, 'listitem', 'Round 1').id;
    const heading = nodeNamed(before.root, 'heading', 'Lists').id;
    await instance.perform(nodeNamed(before.root, 'button', 'Re-render'), { verb: 'tap' }, { timeoutMs: 5000 });
    const after = await instance.observe();
    expect(['Alpha', 'Beta'].map((name) => nodeNamed(after.root, 'listitem', name).id)).toEqual(stableBefore);
    expect(nodeNamed(after.root, 'heading', 'Lists').id).toBe(heading);
    const volatileAfter = nodeNamed(after.root, 'listitem', 'Round 2').id;
    expect(volatileAfter).not.toBe(volatileBefore);
    const button = nodeNamed(after.root, 'button', 'Re-render').id;
    const diff = diffScreens(renderScreen(before, { revision: 1 }), renderScreen(after, { revision: 2 }));
    expect(diff.lines).toEqual([
      `changed #${button} button "Re-render" [focused] (was: no value or states)`,
      `added #${volatileAfter} listitem "Round 2"`,
      `removed #${volatileBefore} listitem "Round 1"`,
    ]);
  });

  it('reports typing as a changed line and a navigation as a mostly changed screen', async () => {
    const instance = await open('rerender.html');
    const first = await instance.observe();
    const firstText = renderScreen(first, { revision: 1 });
    const input = nodeNamed(first.root, 'textbox', 'New item');
    await instance.perform(input, { verb: 'type', value: 'Buy "oat" milk', replace: true }, { timeoutMs: 5000 });
    const typed = await settleAfterAction((options) => instance.observe(options), shapeOf(first), { maxMs: 2000 });
    const typedText = renderScreen(typed, { revision: 2 });
    expect(diffScreens(firstText, typedText).lines).toEqual([
      `changed #${input.id} textbox "New item" value="Buy \\"oat\\" milk" [focused] (was: no value or states)`,
    ]);

    await instance.perform(nodeNamed(typed.root, 'link', 'Second page'), { verb: 'tap' }, { timeoutMs: 5000 });
    const navigated = await settleAfterAction((options) => instance.observe(options), shapeOf(typed), { maxMs: 2000 });
    const navigatedText = renderScreen(navigated, { revision: 3 });
    expect(navigatedText.split('\n')[0]).toMatch(/^Screen \(revision 3, path \/second\.html, \d+ nodes\):$/);
    const diff = diffScreens(typedText, navigatedText);
    expect(diff.mostlyChanged).toBe(true);
    expect(diff.lines.some((line) => /^added #n\d+ heading "Second page"$/.test(line))).toBe(true);
    expect(diff.lines).toContain(`removed #${input.id} textbox "New item" value="Buy \\"oat\\" milk" [focused]`);
    // Ids never repeat within an attempt, even across documents.
    const firstIds = new Set(allNodes(first.root).map((node) => node.id));
    expect(allNodes(navigated.root).filter((node) => node.id !== 'root' && firstIds.has(node.id))).toEqual([]);
  });

  it('names a field by exactly the labels whose control it is, in document order, each in its own tree', async () => {
    const instance = await open('rerender.html');
    const page = surfaceOf(engine).page();
    await page.setContent(
      '<label>Outer <input id="a" data-testid="a"></label> <label for="a">By for</label>' +
        '<label for="b">First</label> <input id="b" data-testid="b"> <label for="b">Second</label>' +
        '<label for="other">Wraps <input id="c" data-testid="c"></label> <input id="other" data-testid="other">' +
        '<label>Two <input data-testid="d"> <input data-testid="e"></label>' +
        '<label for="m">Level</label> <meter id="m" data-testid="m" value="0.5"></meter>' +
        '<label for="s">Document label</label> <div id="host"></div>' +
        '<script>document.getElementById("host").attachShadow({ mode: "open" }).innerHTML = \'<label for="s">Shadow label</label> <input id="s" data-testid="s">\';</script>',
    );
    const { root } = await instance.observe();
    const named = (testId: string): string | undefined => allNodes(root).find((node) => node.testId === testId)?.name;
    // What the browser's own `labels` lists for each field, as the walk names them.
    const browser = await page.evaluate(() => {
      const text = (label: Element): string => Array.from(label.childNodes, (node) => (node.nodeType === 3 ? node.textContent : '')).join('').replace(/\s+/g, ' ').trim();
      const fields = [...Array.from(document.querySelectorAll('[data-testid]')), ...Array.from(document.getElementById('host')!.shadowRoot!.querySelectorAll('[data-testid]'))];
      return Object.fromEntries(fields.map((field) => [field.getAttribute('data-testid'), Array.from((field as HTMLInputElement).labels ?? [], text).join(' ')]));
    });
    expect(browser).toEqual({ a: 'Outer By for', b: 'First Second', c: '', other: 'Wraps', d: 'Two', e: '', m: 'Level', s: 'Shadow label' });
    for (const [testId, name] of Object.entries(browser)) expect(named(testId), testId).toBe(name);
  });

  it('observes a 1,000-element page whole (its speed is a bench figure: replay_observe_ms)', async () => {
    const instance = await open('rerender.html');
    const page = surfaceOf(engine).page();
    await page.setContent(`<ul>${Array.from({ length: 250 }, (_, index) => `<li><span>Item ${index}</span> <button>Delete</button> <a href="/i/${index}">open</a></li>`).join('')}</ul>`);
    await instance.observe();
    const observation = await instance.observe();
    expect(observation.nodeCount).toBeGreaterThan(750);
  });
});

describe('a role-less modal overlay', () => {
  it('is a dialog container: a fixed layer over the whole viewport, stacked above the rest; a fixed shell without a stacking order or a small toast is not', async () => {
    const instance = await open('overlay.html');
    const { root } = await instance.observe();
    const dialogs = allNodes(root).filter((node) => node.role === 'dialog');
    expect(dialogs).toHaveLength(1);
    const inDialog = allNodes(dialogs[0]!);
    expect(inDialog.some((node) => node.role === 'button' && node.name === 'Authorize')).toBe(true);
    expect(inDialog.filter((node) => node.role === 'textbox')).toHaveLength(1);
    expect(inDialog.some((node) => node.name === 'Undo' || node.name === 'Operations')).toBe(false);
    // Matching sees where each lookalike sits: the modal's unnamed field and button are not the page's.
    const index = indexTree(root);
    const fields = index.nodes.filter((node) => node.node.role === 'textbox');
    expect(fields.map((field) => field.container?.role ?? 'page')).toEqual(['page', 'dialog']);
    const buttons = index.nodes.filter((node) => node.node.role === 'button' && node.node.name === 'Authorize');
    expect(buttons.map((button) => button.container?.role ?? 'page')).toEqual(['page', 'dialog']);
  });

  it('is a dialog when its element is inline by tag (a fixed box is a block), and an inline wrapper never is', async () => {
    const instance = await open('rerender.html');
    const page = surfaceOf(engine).page();
    await page.setContent(
      '<span style="position: fixed; inset: 0; z-index: 10"><b style="display: block">Sign in</b> <button>Continue</button></span>' +
        '<p><span style="z-index: 10">Inline <button>Back</button></span></p>',
    );
    const { root } = await instance.observe();
    const dialogs = allNodes(root).filter((node) => node.role === 'dialog');
    expect(dialogs).toHaveLength(1);
    expect(allNodes(dialogs[0]!).map((node) => node.name)).toContain('Continue');
    expect(allNodes(dialogs[0]!).map((node) => node.name)).not.toContain('Back');
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('span')!).display)).toBe('block');
  });
});
