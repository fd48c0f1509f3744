/**
 * The terminal example's config: a coffee order at a terminal (`app/coffee.mjs`, a program in a
 * pseudo-terminal), driven by the same agent and the same cache as the web example. `npx e2e
 * replay` in this folder replays it from the committed cache with no model, no key and no
 * browser. To record (or heal) it, set one of the variables `../shop/support/model.ts` lists and
 * run `npx e2e record` here.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'e2e';
import { terminal } from 'e2e/terminal';
import { exampleModel } from '../shop/support/model.js';
import { coffeeScript } from './support/stand-in-script.js';

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  targets: [
    {
      name: 'terminal',
      engine: terminal(),
      // `identity` names the app in the cache key: the default (the command line) holds this machine's path to node.
      app: { command: process.execPath, args: ['app/coffee.mjs'], cwd: fileURLToPath(new URL('.', import.meta.url)), cols: 80, rows: 24, identity: 'coffee' },
    },
  ],
  agents: {
    default: {
      model: exampleModel(process.env, coffeeScript),
      context: 'A coffee order at a terminal: a menu of drinks, a checklist of extras with an OK button, then a prompt for the name on the cup.',
    },
  },
});
