/**
 * The terminal engine on real programs nobody here wrote: dialog(1) and whiptail(1) drawing the
 * same script's dialogs, and two releases of @inquirer/prompts. What a person sees is what the
 * tree says (menus with the current row selected, check marks, fields with their question,
 * buttons), both programs read the same, and taps land on the control asked for.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { isEngineError } from '../../../contract/engine.js';
import { nodeNamed, nodesOf, openTerminal, orderPrompts, orderScript, shapeOf, shows, type OpenTerminal } from '../../support/terminal-programs.js';

const open: OpenTerminal[] = [];
async function start(...args: Parameters<typeof openTerminal>): Promise<OpenTerminal> {
  const started = await openTerminal(...args);
  open.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

describe('dialog and whiptail drawing the same script', () => {
  it.each(['dialog', 'whiptail'] as const)('%s draws the menu as a menu in a titled dialog, its current item selected', async (ui) => {
    const program = await start(orderScript(ui));
    const screen = await program.settled();
    const dialog = nodeNamed(screen.root, 'dialog', 'Order');
    const menu = nodeNamed(dialog, 'menu', 'Pick a fruit');
    expect(menu.children.map((item) => [item.role, item.name, item.states])).toEqual([
      ['menuitem', 'a Apple', ['selected']],
      ['menuitem', 'b Banana', []],
      ['menuitem', 'c Cherry', []],
    ]);
    expect(nodesOf(dialog).filter((node) => node.role === 'button').map((node) => node.name.toLowerCase())).toEqual(['ok', 'cancel']);
  });

  it('both programs read as the same controls with the same names', async () => {
    const [dialog, whiptail] = await Promise.all([start(orderScript('dialog')), start(orderScript('whiptail'))]);
    const shapes = await Promise.all([dialog.settled(), whiptail.settled()]);
    // dialog keeps OK lit while the list has focus; whiptail lights no button until Tab.
    const controls = (root: typeof shapes[0]['root']) => shapeOf(root).filter((line) => !line.startsWith('button')).join('\n');
    expect(controls(shapes[0].root)).toEqual(controls(shapes[1].root));
  });

  it.each(['dialog', 'whiptail'] as const)('on %s the whole order goes through by taps, a check, typing and a password that never shows', async (ui) => {
    const program = await start(orderScript(ui));
    let screen = await program.settled();
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'menuitem', 'c Cherry').id }, { verb: 'tap' }, { timeoutMs: 10_000 }), shows('Toppings'));
    const toppings = nodeNamed(screen.root, 'group', 'Toppings');
    expect(toppings.children.map((mark) => [mark.role, mark.name, mark.states.filter((state) => state === 'checked')])).toEqual([
      ['checkbox', 'cream Cream', []],
      ['checkbox', 'nuts Nuts', []],
      ['checkbox', 'honey Honey', ['checked']],
    ]);
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'checkbox', 'nuts Nuts').id }, { verb: 'check', checked: true }, { timeoutMs: 10_000 }));
    expect(nodeNamed(screen.root, 'checkbox', 'nuts Nuts').states).toContain('checked');
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'button', 'OK').id }, { verb: 'tap' }, { timeoutMs: 10_000 }), shows('Your name'));
    const name = nodesOf(screen.root).find((node) => node.role === 'textbox');
    expect(name).toMatchObject({ name: 'Your name', value: '', states: ['focused'] });
    screen = await program.after((instance) => instance.perform({ id: name!.id }, { verb: 'type', value: 'Ada', replace: true }, { timeoutMs: 10_000 }));
    expect(nodesOf(screen.root).find((node) => node.role === 'textbox')).toMatchObject({ name: 'Your name', value: 'Ada' });
    screen = await program.after((instance) => instance.performOnPage({ verb: 'press', key: 'Enter' }, { timeoutMs: 10_000 }), shows('Password'));
    const password = nodesOf(screen.root).find((node) => node.role === 'textbox')!;
    expect(password).toMatchObject({ name: 'Password', states: ['focused', 'secure'] });
    // dialog echoes nothing for a password, whiptail a star per character: no change to wait for.
    await program.instance.perform({ id: password.id }, { verb: 'type', value: 'hunter22', replace: false }, { timeoutMs: 10_000 });
    expect(JSON.stringify((await program.instance.observe()).root)).not.toContain('hunter22');
    screen = await program.after((instance) => instance.performOnPage({ verb: 'press', key: 'Enter' }, { timeoutMs: 10_000 }), shows('Place the order?'));
    expect(nodeNamed(screen.root, 'text', 'Place the order?')).toBeDefined();
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'button', 'No').id }, { verb: 'tap' }, { timeoutMs: 10_000 }), shows('Order for Ada: Cherry with nuts honey, placed: no'));
    expect(nodesOf(screen.root).map((node) => node.name)).toContain('Order for Ada: Cherry with nuts honey, placed: no');
    expect(screen.root.value).toBe('ended, exit code 0');
    await expect(program.instance.performOnPage({ verb: 'press', key: 'Enter' }, { timeoutMs: 1000 })).rejects.toMatchObject({ engineCode: 'NOT_ACTIONABLE' });
  });

  it('ids stay while the content stays: moving the selection keeps every item\'s id', async () => {
    const program = await start(orderScript('dialog'));
    const first = await program.settled();
    const again = await program.instance.observe();
    expect(nodesOf(again.root).map((node) => node.id)).toEqual(nodesOf(first.root).map((node) => node.id));
    const moved = await program.after((instance) => instance.performOnPage({ verb: 'press', key: 'ArrowDown' }, { timeoutMs: 5000 }));
    const ids = (root: typeof first.root) => nodeNamed(root, 'menu', 'Pick a fruit').children.map((item) => `${item.id} ${item.name}`);
    expect(ids(moved.root)).toEqual(ids(first.root));
    expect(nodeNamed(moved.root, 'menuitem', 'b Banana').states).toEqual(['selected']);
  });

  it('a key aimed at an item that is not the current one is refused before it is sent', async () => {
    const program = await start(orderScript('whiptail'));
    const screen = await program.settled();
    const refused = await program.instance.perform({ id: nodeNamed(screen.root, 'menuitem', 'c Cherry').id }, { verb: 'press', key: 'Enter' }, { timeoutMs: 5000 }).catch((error: unknown) => error);
    expect(isEngineError(refused) && refused.engineCode).toBe('NOT_ACTIONABLE');
    const after = await program.instance.observe();
    expect(nodeNamed(after.root, 'menuitem', 'a Apple').states).toEqual(['selected']);
  });

  it('a mouse tap clicks the cell where the program reports the mouse (dialog), and is refused where it does not (whiptail)', async () => {
    const clicking = await start(orderScript('dialog'), { tap: 'mouse' });
    let screen = await clicking.settled();
    screen = await clicking.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'menuitem', 'b Banana').id }, { verb: 'tap' }, { timeoutMs: 5000 }));
    expect(nodeNamed(screen.root, 'menuitem', 'b Banana').states).toEqual(['selected']);
    const deaf = await start(orderScript('whiptail'), { tap: 'mouse' });
    const still = await deaf.settled();
    await expect(deaf.instance.perform({ id: nodeNamed(still.root, 'menuitem', 'b Banana').id }, { verb: 'tap' }, { timeoutMs: 5000 })).rejects.toMatchObject({ engineCode: 'NOT_ACTIONABLE', message: expect.stringContaining('does not report the mouse') });
  });

  it('restart starts the program again from its first dialog', async () => {
    const program = await start(orderScript('dialog'));
    let screen = await program.settled();
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'menuitem', 'b Banana').id }, { verb: 'tap' }, { timeoutMs: 10_000 }), shows('Toppings'));
    expect(nodesOf(screen.root).some((node) => node.name === 'Toppings')).toBe(true);
    await program.instance.session.restart();
    screen = await program.settled();
    expect(nodeNamed(screen.root, 'menuitem', 'a Apple').states).toEqual(['selected']);
  });
});

describe('two releases of @inquirer/prompts', () => {
  it('v3 and v7 read as the same menu, though v7 drew its help line and v3 its hint', async () => {
    const [v3, v7] = await Promise.all([start(orderPrompts('v3')), start(orderPrompts('v7'))]);
    const [old, current] = await Promise.all([v3.settled(), v7.settled()]);
    for (const screen of [old, current]) {
      expect(nodeNamed(screen.root, 'menu', 'Pick a fruit').children.map((item) => [item.name, item.states])).toEqual([
        ['Apple', ['selected']],
        ['Banana', []],
        ['Cherry', []],
      ]);
    }
    expect(nodesOf(old.root).map((node) => node.name)).toContain('Pick a fruit (Use arrow keys)');
    expect(nodesOf(current.root).map((node) => node.name.replace(/\s+/g, ' '))).toContain('↑↓ navigate • ⏎ select');
  });

  it.each(['v3', 'v7'] as const)('%s: select, input, a masked password and confirm go through; the answers read the same on both', async (release) => {
    const program = await start(orderPrompts(release));
    let screen = await program.settled();
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'menuitem', 'Banana').id }, { verb: 'tap' }, { timeoutMs: 10_000 }), shows('Your name'));
    expect(nodesOf(screen.root).map((node) => node.name)).toContain('Pick a fruit Banana');
    const name = nodeNamed(screen.root, 'textbox', 'Your name');
    screen = await program.after((instance) => instance.perform({ id: name.id }, { verb: 'type', value: 'Bob', replace: false }, { timeoutMs: 10_000 }));
    expect(nodeNamed(screen.root, 'textbox', 'Your name').value).toBe('Bob');
    screen = await program.after((instance) => instance.performOnPage({ verb: 'press', key: 'Enter' }, { timeoutMs: 10_000 }), shows('Password'));
    const password = nodeNamed(screen.root, 'textbox', 'Password');
    expect(password.states).toEqual(['focused', 'secure']);
    // dialog echoes nothing for a password, whiptail a star per character: no change to wait for.
    await program.instance.perform({ id: password.id }, { verb: 'type', value: 'hunter22', replace: false }, { timeoutMs: 10_000 });
    expect(JSON.stringify((await program.instance.observe()).root)).not.toContain('hunter22');
    screen = await program.after((instance) => instance.performOnPage({ verb: 'press', key: 'Enter' }, { timeoutMs: 10_000 }), shows('Place the order?'));
    screen = await program.after((instance) => instance.perform({ id: nodeNamed(screen.root, 'textbox', 'Place the order?').id }, { verb: 'type', value: 'y', replace: false }, { timeoutMs: 10_000 }));
    screen = await program.after((instance) => instance.performOnPage({ verb: 'press', key: 'Enter' }, { timeoutMs: 10_000 }), shows('Order for Bob: Banana, placed: yes'));
    const lines = nodesOf(screen.root).map((node) => node.name.toLowerCase());
    expect(lines).toEqual(expect.arrayContaining(['pick a fruit banana', 'your name bob', 'place the order? yes', 'order for bob: banana, placed: yes']));
  });
});
