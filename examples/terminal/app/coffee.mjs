#!/usr/bin/env node
// A coffee order at a terminal, drawn with plain ANSI escape codes (no library): a menu of
// drinks (the current row in reverse video), a checklist of extras with an OK button, then a
// question on the normal screen, and the order it placed. Keys: arrows, Space, Enter, q.
// COFFEE_FAULT plants a bug for the tests: `rename` calls the Latte "Caffe latte" (the menu
// changed: drift), `forget-extras` places the order without the extras ticked (a regression),
// `done-button` calls the OK button "Done".
const FAULT = process.env.COFFEE_FAULT ?? 'none';
const DRINKS = ['Espresso', FAULT === 'rename' ? 'Caffe latte' : 'Latte', 'Cappuccino', 'Flat white'];
const EXTRAS = ['Oat milk', 'Extra shot', 'Cinnamon'];
const WIDTH = 44;

const out = (text) => process.stdout.write(text);
const at = (row, column) => `\x1b[${row};${column}H`;
const pad = (text) => text + ' '.repeat(Math.max(0, WIDTH - 4 - [...text].length));

/** A box with a title in its top edge and the given lines inside, from row 2; the hint below it. */
function box(title, lines, hint) {
  const top = `┌${'─'.repeat(Math.floor((WIDTH - 4 - title.length) / 2))} ${title} `;
  let screen = '\x1b[2J' + at(2, 3) + top + '─'.repeat(WIDTH - 1 - [...top].length) + '┐';
  lines.forEach((line, index) => {
    screen += at(3 + index, 3) + '│ ' + line + '\x1b[0m' + ' │';
  });
  return screen + at(3 + lines.length, 3) + `└${'─'.repeat(WIDTH - 2)}┘` + at(5 + lines.length, 3) + hint;
}

function drinksScreen(current) {
  const rows = DRINKS.map((drink, index) => (index === current ? `\x1b[7m${pad('  ' + drink)}` : pad('  ' + drink)));
  return box('Coffee', [pad('Pick a drink'), pad(''), ...rows, pad('')], '↑/↓ move · Enter pick · q quit');
}

function extrasScreen(drink, current, chosen) {
  const rows = EXTRAS.map((extra, index) => {
    const line = pad(`  [${chosen.has(index) ? 'x' : ' '}] ${extra}`);
    return index === current ? `\x1b[7m${line}` : line;
  });
  const label = FAULT === 'done-button' ? '< Done >' : '<  OK  >';
  const ok = current === EXTRAS.length ? `\x1b[7m${label}\x1b[0m` : label;
  return box('Coffee', [pad(`Extras for your ${drink}`), pad(''), ...rows, pad(''), ' '.repeat(14) + ok + ' '.repeat(WIDTH - 26)], 'Space tick · Tab to OK · Enter go on');
}

/** The keys in one read: keystrokes sent quickly arrive together ("\x1b[B\r" is ↓ then Enter). */
function split(data) {
  return data.match(/\x1b\[[0-9;]*[A-Za-z~]|\x1bO[A-Z]|\x1b|[\s\S]/gu) ?? [];
}

/** Read keys until `handle` returns true; keys after that one wait for the next reader. */
let pending = [];
function keys(handle) {
  return new Promise((resolve) => {
    const take = () => {
      while (pending.length > 0) {
        const key = pending.shift();
        if (key === '\x03') cancel();
        if (handle(key)) {
          process.stdin.off('data', listener);
          resolve();
          return;
        }
      }
    };
    const listener = (data) => {
      pending.push(...split(data.toString('utf8')));
      take();
    };
    process.stdin.on('data', listener);
    take();
  });
}

function cancel() {
  finish();
  out('Cancelled\n');
  process.exit(1);
}

function finish() {
  out('\x1b[?25h\x1b[?1049l');
}

process.stdin.setRawMode(true);
process.stdin.resume();
out('\x1b[?1049h\x1b[?25l\x1b]2;Coffee\x07');

let drink = 0;
out(drinksScreen(drink));
await keys((key) => {
  if (key === '\x1b[A' || key === '\x1bOA') drink = (drink + DRINKS.length - 1) % DRINKS.length;
  else if (key === '\x1b[B' || key === '\x1bOB') drink = (drink + 1) % DRINKS.length;
  else if (key === '\r') return true;
  else if (key === 'q') cancel();
  out(drinksScreen(drink));
  return false;
});

let current = 0;
const chosen = new Set();
out(extrasScreen(DRINKS[drink], current, chosen));
await keys((key) => {
  if (key === '\x1b[A' || key === '\x1bOA') current = Math.max(0, current - 1);
  else if (key === '\x1b[B' || key === '\x1bOB') current = Math.min(EXTRAS.length, current + 1);
  else if (key === '\t') current = current === EXTRAS.length ? 0 : EXTRAS.length;
  else if (key === ' ' && current < EXTRAS.length) chosen.has(current) ? chosen.delete(current) : chosen.add(current);
  else if (key === '\r') return true;
  out(extrasScreen(DRINKS[drink], current, chosen));
  return false;
});

finish();
out('Name for the cup: ');
let name = '';
await keys((key) => {
  if (key === '\r') return true;
  if (key === '\x7f') {
    if (name.length > 0) {
      name = name.slice(0, -1);
      out('\b \b');
    }
    return false;
  }
  if (/^[\p{L}\p{N} .'-]+$/u.test(key)) {
    name += key;
    out(key);
  }
  return false;
});
const extras = [...(FAULT === 'forget-extras' ? [] : chosen)].sort().map((index) => EXTRAS[index].toLowerCase());
out(`\nOrder placed: ${DRINKS[drink]}${extras.length > 0 ? ` with ${extras.join(' and ')}` : ''} for ${name}\n`);
process.exit(0);
