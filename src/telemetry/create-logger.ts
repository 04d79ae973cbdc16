import winston from 'winston';
import type { Logger } from '../core/ports/logger';
import { knownSecrets, type SecretValues } from '../core/secrets';
import { redactFields } from './redact';

export interface LoggerOptions {
  readonly level: 'error' | 'warn' | 'info' | 'debug';
  readonly format: 'text' | 'json';
  /** Where logs go; stderr by default so that command output on stdout stays clean. */
  readonly stream?: NodeJS.WritableStream;
  /** The secret values to mask; the process's known secrets by default. */
  readonly secrets?: SecretValues;
}

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

class WinstonLogger implements Logger {
  constructor(private readonly winston: winston.Logger) {}
  error(message: string, meta?: Record<string, unknown>): void {
    this.winston.error(message, meta);
  }
  warn(message: string, meta?: Record<string, unknown>): void {
    this.winston.warn(message, meta);
  }
  info(message: string, meta?: Record<string, unknown>): void {
    this.winston.info(message, meta);
  }
  debug(message: string, meta?: Record<string, unknown>): void {
    this.winston.debug(message, meta);
  }
  child(meta: Record<string, unknown>): Logger {
    return new WinstonLogger(this.winston.child(meta));
  }
}

/** The process's root logger: winston, structured, secrets masked (see redact.ts). */
export function createLogger(options: LoggerOptions): Logger {
  const format = winston.format.combine(
    redact(options.secrets ?? knownSecrets),
    winston.format.timestamp(),
    options.format === 'json' ? winston.format.json() : text,
  );
  const transport = new winston.transports.Stream({ stream: options.stream ?? process.stderr });
  return new WinstonLogger(winston.createLogger({ level: options.level, format, transports: [transport] }));
}
