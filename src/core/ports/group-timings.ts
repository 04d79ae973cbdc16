/**
 * How a process stays in a consumer group of its flow: Kafka's `session.timeout.ms` and
 * `heartbeat.interval.ms`, and the rebalance timeout (the Java consumer's `max.poll.interval.ms`).
 */
export interface GroupTimings {
  readonly sessionTimeoutMs: number;
  readonly heartbeatIntervalMs: number;
  readonly rebalanceTimeoutMs: number;
}
