/** One config change the target refused at the last pass that tried it. */
export interface RefusedConfig {
  readonly topic: string;
  readonly name: string;
  /** Kafka's error name (INVALID_CONFIG, POLICY_VIOLATION, TOPIC_AUTHORIZATION_FAILED, …). */
  readonly error: string;
  /** The broker's reason. */
  readonly message: string;
}

/**
 * Live counters of one flow's periodic topic config sync (`topic_sync.configs_interval_ms`), read
 * through `FlowStatus.configSync`. Updated once per pass.
 */
export class ConfigSyncStatus {
  enabled = false;
  passes = 0;
  /** Remote topics compared at the last pass. */
  topics = 0;
  /** Config changes (SET or DELETE) the target applied. */
  changesApplied = 0;
  /** Config changes the target refused; the others of the same topic are still applied. */
  changesRefused = 0;
  /** What the last pass had refused, by topic and config name. */
  refused: readonly RefusedConfig[] = [];
  /** Passes that failed otherwise (each is retried at the next interval). */
  errors = 0;
  /** Epoch ms of the last completed pass. */
  lastPassAt: number | undefined;
}
