/**
 * The example suite's config. `npm run example` replays it from the committed cache with no
 * model and no key. To record (or heal) it, set one of the variables `support/model.ts`
 * lists and run `npx e2e record` in this folder.
 */
import { defineConfig, web } from 'e2e';
import { exampleModel } from './support/model.js';

const port = Number(process.env['SHOP_PORT'] ?? 4173);
const url = `http://127.0.0.1:${port}`;

export default defineConfig({
  testDir: 'tests',
  workers: 1,
  webServer: { command: `node app/server.js ${port}`, url: `${url}/`, reuseExistingServer: false },
  targets: [{ name: 'web', engine: web(), app: { url } }],
  agents: {
    default: {
      model: exampleModel(),
      context: 'A small shop: sign in, a product table with an "Add to cart" button per row, a cart list, a checkout form.',
    },
  },
  // The demo server's password (it reads SHOP_PASSWORD too); a real project reads secrets from the environment only.
  secrets: { shopPassword: process.env['SHOP_PASSWORD'] ?? 'correct-horse-battery' },
});
