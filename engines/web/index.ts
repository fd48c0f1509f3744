/**
 * `e2e/web`: the web engine on Playwright (DESIGN §8), the documented API only: `web()` makes
 * the engine, `surfaceOf()` hands an executor the attempt's page. The runner's helpers (browser
 * discovery, launch options, locating nodes) are imported from their own files.
 */
export { web, surfaceOf } from './web-engine.js';
export type { WebEngineOptions, WebSurface } from './web-engine.js';
