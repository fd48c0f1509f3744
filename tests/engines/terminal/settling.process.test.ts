/**
 * The terminal engine's rule for "the output has settled" (engines/terminal/README.md): a quiet
 * period measured from the last output and the last key sent, the end of a synchronized-output
 * frame (DEC 2026), a cursor hidden mid-drawing, and a full-screen program that just ended.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { framesProgram, nodesOf, openTerminal, orderScript, type OpenTerminal } from '../../support/terminal-programs.js';
import { scaledTimeout } from '../../support/load-scaled.js';

const open: OpenTerminal[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((each) => each.close()));
});

describe('settling on a terminal', () => {
  it('never reads half a synchronized-output frame, though the program pauses inside it longer than the quiet period', async () => {
    const program = await openTerminal(framesProgram());
    open.push(program);
    const first = await program.settled();
    expect(nodesOf(first.root).map((node) => node.name)).toEqual(['node', 'Frame 1 top', 'Frame 1 bottom']);
    for (let frame = 2; frame <= 4; frame++) {
      const before = await program.instance.observe();
      await program.instance.performOnPage({ verb: 'press', key: 'n' }, { timeoutMs: 1000 });
      const changed = await program.instance.waitForChange!(before.mark!, { until: 'change', maxMs: scaledTimeout(5000) });
      expect(changed.changed).toBe(true);
      const screen = await program.instance.observe();
      // Whatever moment the change was seen, the observation waited for the frame's end.
      expect(nodesOf(screen.root).map((node) => node.name)).toEqual(['node', `Frame ${frame} top`, `Frame ${frame} bottom`]);
    }
  });

  it('does not call a screen settled in the moment between two dialogs of a script', async () => {
    const program = await openTerminal(orderScript('dialog'));
    open.push(program);
    const menu = await program.settled();
    const before = menu.mark!;
    const banana = nodesOf(menu.root).find((node) => node.name === 'b Banana')!;
    await program.instance.perform({ id: banana.id }, { verb: 'tap' }, { timeoutMs: 10_000 });
    // The quiet wait right after the tap's Enter: dialog ends (leaving its drawing) and the script starts the next one.
    await program.instance.waitForChange!(before, { until: 'quiet', maxMs: scaledTimeout(5000) });
    const screen = await program.instance.observe();
    expect(nodesOf(screen.root).map((node) => node.name)).toContain('Toppings');
  });

  it('answers a quiet wait by its bound when the program keeps writing (a spinner), never hangs', async () => {
    const spinner = { command: process.execPath, args: ['-e', "let i=0; setInterval(() => process.stdout.write('\\r' + '|/-\\\\'[i++ % 4]), 20)"], cols: 40, rows: 5 };
    const program = await openTerminal(spinner);
    open.push(program);
    const blank = await program.instance.observe();
    await program.instance.waitForChange!(blank.mark ?? '', { until: 'change', maxMs: scaledTimeout(10_000) });
    const screen = await program.instance.observe();
    // The quiet period asked for is many spinner ticks long, and longer on a busy machine, where a
    // starved spinner can miss a tick of 20 ms: the wait must end at its bound, not by quiet.
    const quietMs = scaledTimeout(250);
    const started = Date.now();
    const waited = await program.instance.waitForChange!(screen.mark ?? '', { until: 'quiet', quietMs, maxMs: 3 * quietMs });
    expect(waited.changed).toBe(true);
    expect(Date.now() - started).toBeGreaterThanOrEqual(3 * quietMs - 10);
  });
});
