/**
 * The injected logger (STYLE 9): the runner never writes to the console itself. Every line
 * goes through {@link redactingLogger}, so no configured secret value reaches a log.
 */

/** Where the runner's diagnostic lines go. */
export interface Logger {
  debug(message: string): void;
  warn(message: string): void;
}

/** A logger that drops everything. */
export const silentLogger: Logger = { debug: () => undefined, warn: () => undefined };

/** Wrap `logger` so every line is redacted first. */
export function redactingLogger(logger: Logger, redact: (text: string) => string): Logger {
  return {
    debug: (message) => logger.debug(redact(message)),
    warn: (message) => logger.warn(redact(message)),
  };
}
