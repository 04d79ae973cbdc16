import { logLevel, type logCreator } from './kafkajs';
import type { Logger } from '../core/ports/logger';

/**
 * Routes kafkajs's logs into our logger. kafkajs logs every error response of a connection at
 * ERROR, including transient ones it retries (a coordinator still loading, a leader moving),
 * and every failed connect to a seed broker (several a second while a cluster is down); those go
 * to debug. Failures that matter reach users through the flows' own errors and outage warnings
 * (which say which cluster, what operation and for how long), and the rest of kafkajs's errors
 * and warnings stay warnings.
 */
/** Connection-level chatter; `BrokerPool` logs each failed connect to a seed broker. */
const QUIET_NAMESPACES = new Set(['Connection', 'BrokerPool']);

export function kafkajsLogCreator(logger: Logger): logCreator {
  // The Kafka client's own logger (`kafkajs` in /admin/loggers), apart from mirrorflow's.
  const kafkajs = logger.child({ component: 'kafkajs' });
  return () =>
    ({ namespace, level, log }) => {
      const {
        message,
        timestamp: _timestamp,
        logger: _name,
        ...meta
      } = log as { message: string; timestamp?: string; logger?: string } & Record<string, unknown>;
      const fields = { namespace, ...meta };
      switch (level) {
        case logLevel.ERROR:
        case logLevel.WARN:
          if (QUIET_NAMESPACES.has(namespace)) kafkajs.debug(message, fields);
          else kafkajs.warn(message, fields);
          break;
        default:
          kafkajs.debug(message, fields);
      }
    };
}
