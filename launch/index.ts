/**
 * `launch`: running Playwright Test on a user's project from the outside. It finds the config
 * and the project's own Playwright, starts a run (or a merge of blob reports, or a listing of
 * the tests) in a child process, forwards interrupts, and concludes from the report the run
 * wrote. `cli/` and the audit start runs only through here.
 */
export { outcomeOfExitClass, type CommandOutcome } from './command-outcome.js';
export { mergeReports, type MergeReportsOptions } from './merge-reports.js';
export { isPlainE2EConfig } from './plain-config.js';
export { cacheLocationOf, CONFIG_FILE_NAMES, findConfigFile, readConfigProbe, type CacheLocationOptions, type ConfigFolders } from './project-config.js';
export { MODEL_VARIABLES_TEXT } from './provider-packages.js';
export { startRun, type RunCommandOptions, type RunCommandResult, type RunHandle, type RunKind } from './run-command.js';
export { listTestInventory, type InventoryTest, type ListedInventory, type TestInventory } from './test-inventory.js';
