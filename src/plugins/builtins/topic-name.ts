/**
 * Kafka's rule for topic names (`Topic.validate`), for built-ins that compute one.
 */

/** The rule in words, for messages. */
export const LEGAL_TOPIC = '1 to 249 of a-z A-Z 0-9 . _ -, not . or ..';

const PATTERN = /^[a-zA-Z0-9._-]{1,249}$/;

export function legalTopicName(name: string): boolean {
  return PATTERN.test(name) && name !== '.' && name !== '..';
}
