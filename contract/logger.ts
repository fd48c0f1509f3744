/**
 * The injected logger (STYLE 9): the runner never writes to the console itself. Every line of
 * an attempt leaves by its outbound boundary (`secrets/outbound.ts`), so no configured secret
 * value reaches a log.
 */

/** Where the runner's diagnostic lines go. */
export interface Logger {
  debug(message: string): void;
  warn(message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: Logger = { debug: () => undefined, warn: () => undefined };
