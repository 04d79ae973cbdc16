/**
 * One error hierarchy for the whole product. `retriable` says whether trying again can help;
 * code decides with `instanceof` and `isRetriable`, never by comparing names.
 */

export interface ErrorOptions {
  readonly cause?: unknown;
}

export class MirrorflowError extends Error {
  override readonly name: string = 'MirrorflowError';
  readonly retriable: boolean = false;
  /** A short stable code for logs and exit-code mapping. */
  readonly code: string = 'MIRRORFLOW_ERROR';

  constructor(message: string, options: ErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
  }
}

/** One problem found in a configuration file. */
export interface ConfigIssue {
  readonly file?: string;
  readonly line?: number;
  readonly column?: number;
  /** Dotted path inside the document, e.g. `flows[0].topics`. */
  readonly path?: string;
  readonly message: string;
  readonly hint?: string;
}

export function formatConfigIssue(issue: ConfigIssue): string {
  const where = [issue.file, issue.line, issue.column].filter((p) => p !== undefined).join(':');
  const at = issue.path ? ` at ${issue.path}` : '';
  const hint = issue.hint ? ` (${issue.hint})` : '';
  return `${where ? `${where}: ` : ''}${issue.message}${at}${hint}`;
}

/** A configuration that cannot run. Carries every problem found, not just the first. */
export class ConfigError extends MirrorflowError {
  override readonly name = 'ConfigError';
  override readonly code = 'CONFIG_INVALID';

  constructor(
    readonly issues: readonly ConfigIssue[],
    options: ErrorOptions = {},
  ) {
    super(
      issues.length === 1
        ? `Invalid configuration: ${formatConfigIssue(issues[0]!)}`
        : `Invalid configuration, ${issues.length} problems:\n${issues.map((i) => `  - ${formatConfigIssue(i)}`).join('\n')}`,
      options,
    );
  }
}

/** A transform plugin failed to load, configure, or run. */
export class PluginError extends MirrorflowError {
  override readonly name = 'PluginError';
  override readonly code = 'PLUGIN_FAILED';

  constructor(
    readonly plugin: string,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(`Plugin "${plugin}": ${message}`, options);
  }
}

/** A failure talking to a Kafka cluster. `retriable` comes from the client's judgement. */
export class KafkaTransportError extends MirrorflowError {
  override readonly name = 'KafkaTransportError';
  override readonly code = 'KAFKA_TRANSPORT';
  override readonly retriable: boolean;

  constructor(
    readonly cluster: string,
    message: string,
    retriable: boolean,
    options: ErrorOptions = {},
  ) {
    super(`Cluster "${cluster}": ${message}`, options);
    this.retriable = retriable;
  }
}

/** A cluster could not be reached or refused our credentials; the run cannot start. */
export class ClusterUnavailableError extends MirrorflowError {
  override readonly name = 'ClusterUnavailableError';
  override readonly code = 'CLUSTER_UNAVAILABLE';

  constructor(
    readonly cluster: string,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(`Cluster "${cluster}": ${message}`, options);
  }
}

/** The local Kafka launcher could not fetch, start or stop a cluster. */
export class LocalKafkaError extends MirrorflowError {
  override readonly name = 'LocalKafkaError';
  override readonly code = 'LOCAL_KAFKA';
}

export function isRetriable(error: unknown): boolean {
  return error instanceof MirrorflowError && error.retriable;
}

export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}
