import { logLevel, type logCreator } from './kafkajs';
import type { Logger } from '../core/ports/logger';

/**
 * Routes kafkajs's logs into our logger. kafkajs logs transient, retried conditions (a
 * coordinator still loading, a leader moving) at ERROR; they are warnings for our users, and
 * real failures reach them as errors through the flows.
 */
export function kafkajsLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...meta } = log as { message: string; timestamp?: string; logger?: string } & Record<string, unknown>;
      const fields = { component: 'kafkajs', namespace, ...meta };
      switch (level) {
        case logLevel.ERROR:
        case logLevel.WARN:
          logger.warn(message, fields);
          break;
        default:
          logger.debug(message, fields);
      }
    };
}

export const kafkajsLogLevel = (logger: { isDebug?: boolean }): logLevel => (logger.isDebug ? logLevel.DEBUG : logLevel.WARN);
