import { logLevel, type logCreator } from './kafkajs';
import type { Logger } from '../core/ports/logger';

/**
 * Routes kafkajs's logs into our logger. kafkajs logs every error response of a connection at
 * ERROR, including transient ones it retries (a coordinator still loading, a leader moving);
 * those go to debug. Failures that matter reach users through the flows' own errors, and the
 * rest of kafkajs's errors and warnings stay warnings.
 */
export function kafkajsLogCreator(logger: Logger): logCreator {
  return () =>
    ({ namespace, level, log }) => {
      const { message, timestamp: _timestamp, logger: _name, ...meta } = log as { message: string; timestamp?: string; logger?: string } & Record<string, unknown>;
      const fields = { component: 'kafkajs', namespace, ...meta };
      switch (level) {
        case logLevel.ERROR:
        case logLevel.WARN:
          if (namespace === 'Connection') logger.debug(message, fields);
          else logger.warn(message, fields);
          break;
        default:
          logger.debug(message, fields);
      }
    };
}
