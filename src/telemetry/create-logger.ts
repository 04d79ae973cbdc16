import winston from '#winston';
import type { Logger } from '../core/ports/logger';
import { knownSecrets, type SecretValues } from '../core/secrets';
import { redactFields } from './redact';
import { LogLevels, type MessageLevel, log4jLevel } from './log-levels';

export interface LoggerOptions {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly format: 'text' | 'json';
  /** Where logs go; stderr by default so that command output on stdout stays clean. */
  readonly stream?: NodeJS.WritableStream;
  /** The secret values to mask; the process's known secrets by default. */
  readonly secrets?: SecretValues;
  /** The named loggers' levels, changeable while running (`/admin/loggers`); made from `level` when not given. */
  readonly levels?: LogLevels;
}

/** The process's own logger; a flow's is `mirrorflow.flow.<flow>`, the Kafka client's `kafkajs` (see childName). */
export const PROCESS_LOGGER = 'mirrorflow';
export const KAFKA_CLIENT_LOGGER = 'kafkajs';

/**
 * Every entry goes through `redactFields` before it is formatted: the message text and every field,
 * nested ones and errors included, with secrets masked by key, by shape and by the values this
 * process knows (see redact.ts) — also the Kafka client's own entries at debug level.
 */
const redact = winston.format((info, secrets: unknown) => {
  redactFields(info as Record<string, unknown>, secrets as SecretValues);
  return info;
});

const text = winston.format.printf((info) => {
  const { level, message, timestamp, ...meta } = info as { level: string; message: string; timestamp: string } & Record<string, unknown>;
  const fields = Object.entries(meta)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${typeof v === 'string' ? (/\s/.test(v) ? JSON.stringify(v) : v) : JSON.stringify(v)}`)
    .join(' ');
  return `${timestamp} ${level.toUpperCase().padEnd(5)} ${message}${fields ? ` ${fields}` : ''}`;
});

/**
 * A named logger: a message goes to winston when the level of its name lets it through
 * (log-levels.ts; looked up again only after a change).
 */
class WinstonLogger implements Logger {
  private seen = -1;
  private threshold = { error: true, warn: true, info: true, debug: true };

  constructor(
    private readonly winston: winston.Logger,
    private readonly levels: LogLevels,
    private readonly name: string,
  ) {
    levels.register(name);
  }
  error(message: string, meta?: Record<string, unknown>): void {
    if (this.passes('error')) this.winston.error(message, meta);
  }
  warn(message: string, meta?: Record<string, unknown>): void {
    if (this.passes('warn')) this.winston.warn(message, meta);
  }
  info(message: string, meta?: Record<string, unknown>): void {
    if (this.passes('info')) this.winston.info(message, meta);
  }
  debug(message: string, meta?: Record<string, unknown>): void {
    if (this.passes('debug')) this.winston.debug(message, meta);
  }
  child(meta: Record<string, unknown>): Logger {
    return new WinstonLogger(this.winston.child(meta), this.levels, childName(this.name, meta));
  }

  private passes(level: MessageLevel): boolean {
    if (this.seen !== this.levels.version) {
      this.seen = this.levels.version;
      const on = (l: MessageLevel): boolean => this.levels.enabled(this.name, l);
      this.threshold = { error: on('error'), warn: on('warn'), info: on('info'), debug: on('debug') };
    }
    return this.threshold[level];
  }
}

/** A child's logger name: the Kafka client's (`component: 'kafkajs'`), a flow's (`flow`), else its parent's. */
function childName(parent: string, meta: Record<string, unknown>): string {
  if (meta['component'] === KAFKA_CLIENT_LOGGER) return KAFKA_CLIENT_LOGGER;
  if (typeof meta['flow'] === 'string' && parent === PROCESS_LOGGER) return `${PROCESS_LOGGER}.flow.${meta['flow']}`;
  return parent;
}

/** The process's root logger: winston, structured, secrets masked (see redact.ts). */
export function createLogger(options: LoggerOptions): Logger {
  const format = winston.format.combine(
    redact(options.secrets ?? knownSecrets),
    winston.format.timestamp(),
    options.format === 'json' ? winston.format.json() : text,
  );
  const transport = new winston.transports.Stream({ stream: options.stream ?? process.stderr });
  const levels = options.levels ?? new LogLevels(log4jLevel(options.level));
  // Every level reaches winston's own check; the named loggers' levels decide (WinstonLogger).
  return new WinstonLogger(winston.createLogger({ level: 'debug', format, transports: [transport] }), levels, PROCESS_LOGGER);
}
