#!/usr/bin/env node
// The conformance scenario at a terminal: a list of items above a "New item" prompt; Enter adds
// what was typed to the list. `node echo-terminal.mjs broken`: Enter clears the prompt and adds
// nothing (the planted regression).
const broken = process.argv[2] === 'broken';
const items = [];
let line = '';

function draw() {
  const list = items.map((item) => `  - ${item}\r\n`).join('');
  process.stdout.write(`\x1b[2J\x1b[HItems (${items.length}):\r\n${list}\r\nNew item: ${line}`);
}

process.stdin.setRawMode(true);
process.stdin.resume();
process.stdin.on('data', (data) => {
  for (const key of data.toString('utf8')) {
    if (key === '\x03') process.exit(0);
    if (key === '\r') {
      if (!broken && line.trim() !== '') items.push(line);
      line = '';
    } else if (key === '\x7f') line = line.slice(0, -1);
    else if (key >= ' ') line += key;
  }
  draw();
});
draw();
