/**
 * `e2e/web`: the web engine on Playwright (DESIGN §8). `web()` makes the engine;
 * `surfaceOf()` hands an executor the attempt's page; the launch helpers let the runner
 * host give Playwright Test the same browser discovery finds.
 */
export { web, surfaceOf, launchOptionsFor, connectOptionsFor, webOptionsOf, WEB_ENGINE_VERSION, DEFAULT_VIEWPORT } from './web-engine.js';
export type { WebEngineOptions, WebSurface } from './web-engine.js';
export { findChromium, playwrightCanRecordVideo, resolveLaunchOptions, CHROMIUM_LAUNCH_ARGUMENTS, SYSTEM_CHROMIUM_NAMES } from './browser-discovery.js';
export type { ChromiumLaunchOptions, ChromiumLocation, ChromiumSource, FindChromiumOptions } from './browser-discovery.js';
export { LONG_PRESS_MS } from './perform-action.js';
export { nodeIdsOf } from './locate-node.js';
