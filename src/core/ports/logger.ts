import { token } from './token';
/** Structured logging. Messages are constant sentences; identifiers go in `meta`. Never pass secrets. */
export interface Logger {
  error(message: string, meta?: Record<string, unknown>): void;
  warn(message: string, meta?: Record<string, unknown>): void;
  info(message: string, meta?: Record<string, unknown>): void;
  debug(message: string, meta?: Record<string, unknown>): void;
  child(meta: Record<string, unknown>): Logger;
}
/** DI token; a token and its interface share a name. */
export const Logger = token<Logger>('Logger');

/** A logger that drops everything, for tests and for code that runs before logging is set up. */
export const silentLogger: Logger = {
  error() {},
  warn() {},
  info() {},
  debug() {},
  child() {
    return silentLogger;
  },
};
