import { randomUUID } from 'node:crypto';

/**
 * A random Kafka `Uuid` as `kafka-storage random-uuid` prints it: 16 bytes of a version-4 UUID
 * in URL-safe base64 without padding (22 characters). Made here rather than by starting a JVM
 * for `StorageTool random-uuid`, which costs about a second per cluster. Like Kafka's
 * `Uuid.randomUuid()`, ids whose text starts with '-' are rejected because command lines would
 * read them as flags.
 */
export function randomKafkaUuid(): string {
  for (;;) {
    const bytes = Buffer.from(randomUUID().replace(/-/g, ''), 'hex');
    const text = bytes.toString('base64url');
    if (!text.startsWith('-')) return text;
  }
}
