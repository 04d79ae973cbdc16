import { randomBytes } from 'node:crypto';

/**
 * A name no other test uses, for topics and groups: tests share clusters and run in parallel.
 * Only characters legal in Kafka topic names; time first so names sort by creation.
 */
export function uniqueName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(4).toString('hex')}`;
}
