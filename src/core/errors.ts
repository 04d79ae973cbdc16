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

/**
 * One problem as compilers and linters print it, `file:line:col: key: message`, so editors and CI
 * annotations find the place, then the hint on an indented line of its own:
 *
 *     mm2.properties:5:1: renamerefresh.topics: unknown MM2 setting
 *       hint: did you mean "refresh.topics.enabled"?
 *
 * A warning says so after the place (`file:line:col: warning: key: message`). Parts that are not
 * known (no line for a problem of `--set`, no key for a file that cannot be read) are left out.
 */
export function formatConfigIssue(issue: ConfigIssue, severity?: 'warning'): string {
  const where = [issue.file, issue.line, issue.column].filter((part) => part !== undefined && part !== '').join(':');
  const head = [where, severity, issue.path].filter((part) => part !== undefined && part !== '').join(': ');
  const text = head === '' ? issue.message : `${head}: ${issue.message}`;
  return issue.hint ? `${text}\n  hint: ${issue.hint}` : text;
}

/** A configuration that cannot run. Carries every problem found, not just the first. */
export class ConfigError extends MirrorflowError {
  override readonly name = 'ConfigError';
  override readonly code = 'CONFIG_INVALID';

  /** The command printed the problems itself (`validate`); the entry point only exits with its code. */
  readonly reported: boolean;

  constructor(
    readonly issues: readonly ConfigIssue[],
    options: ErrorOptions & { readonly reported?: boolean } = {},
  ) {
    super(
      `Invalid configuration (${issues.length === 1 ? '1 problem' : `${issues.length} problems`}):\n${issues.map((i) => formatConfigIssue(i)).join('\n')}`,
      options,
    );
    this.reported = options.reported ?? false;
  }
}

/** A transform plugin failed to load, configure, or run. */
export class PluginError extends MirrorflowError {
  override readonly name: string = 'PluginError';
  override readonly code: string = 'PLUGIN_FAILED';

  constructor(
    readonly plugin: string,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(`Plugin "${plugin}": ${message}`, options);
  }
}

/**
 * A plugin folder or package that could not be loaded, as a problem of the configuration: where
 * (the plugin's file, and the line when its code failed), what, and a hint.
 */
export class PluginLoadError extends PluginError {
  override readonly name = 'PluginLoadError';
  override readonly code = 'PLUGIN_LOAD_FAILED';

  constructor(
    plugin: string,
    readonly issue: ConfigIssue,
    options: ErrorOptions = {},
  ) {
    super(
      plugin,
      `${issue.message}${issue.file === undefined ? '' : ` (${[issue.file, issue.line, issue.column].filter((p) => p !== undefined).join(':')})`}${issue.hint === undefined ? '' : `; ${issue.hint}`}`,
      options,
    );
  }
}

/** Where in a flow a record failed: a transform step, or the write to the target. */
export type RecordFailureStage = { readonly kind: 'transform'; readonly plugin: string; readonly step: string } | { readonly kind: 'write' };

/**
 * One record could not be replicated, and trying again cannot help: a transform threw on it, or
 * the target refuses it on its own (larger than the topic takes). Names the record's source
 * position and the stage, never its contents; the original error stays reachable as `cause`.
 */
export class RecordFailedError extends MirrorflowError {
  override readonly name = 'RecordFailedError';
  override readonly code = 'RECORD_FAILED';

  constructor(
    readonly source: { readonly topic: string; readonly partition: number; readonly offset: number },
    readonly stage: RecordFailureStage,
    /** Why, safe to show: it never quotes the record. */
    readonly reason: string,
    options: ErrorOptions = {},
  ) {
    const at = stage.kind === 'transform' ? `transform "${stage.plugin}" (${stage.step})` : 'the write to the target';
    super(`The record at topic "${source.topic}" partition ${source.partition} offset ${source.offset} failed in ${at}: ${reason}`, options);
  }
}

/**
 * The target refused one record (or one record of a forwarded batch) on its own, permanently: it
 * is larger than the topic takes. `index` is the item of the write, `offsetInBatch` the record's
 * place in a forwarded batch (0 for a record).
 */
export class RecordRefusedError extends MirrorflowError {
  override readonly name = 'RecordRefusedError';
  override readonly code = 'RECORD_REFUSED';

  constructor(
    readonly cluster: string,
    readonly index: number,
    readonly offsetInBatch: number,
    message: string,
    options: ErrorOptions = {},
  ) {
    super(`Cluster "${cluster}": ${message}`, options);
  }

  /** The same refusal, for the item `index` of an enclosing write, at `offsetInBatch` in it. */
  at(index: number, offsetInBatch: number): RecordRefusedError {
    return new RecordRefusedError(this.cluster, index, offsetInBatch, this.message.slice(`Cluster "${this.cluster}": `.length), { cause: this.cause });
  }
}

/** A failure talking to a Kafka cluster. `retriable` comes from the client's judgement. */
export class KafkaTransportError extends MirrorflowError {
  override readonly name: string = 'KafkaTransportError';
  override readonly code: string = 'KAFKA_TRANSPORT';
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

/**
 * The cluster refused an operation to mirrorflow's principal (a missing ACL: Kafka's
 * TOPIC/GROUP/CLUSTER_AUTHORIZATION_FAILED). Never retriable: only a grant fixes it.
 * `principal` says who was refused, when known (added by the pipeline, which knows the
 * credentials: the broker does not say).
 */
export class KafkaAuthorizationError extends KafkaTransportError {
  override readonly name = 'KafkaAuthorizationError';
  override readonly code = 'KAFKA_AUTHORIZATION';

  constructor(
    cluster: string,
    /** The message without `Cluster "x": `. */
    readonly detail: string,
    readonly principal: string | undefined,
    options: ErrorOptions = {},
  ) {
    super(cluster, principal === undefined ? detail : `${detail} (as ${principal})`, false, options);
  }

  /** The same refusal, saying who was refused. */
  as(principal: string): KafkaAuthorizationError {
    return new KafkaAuthorizationError(this.cluster, this.detail, principal, { cause: this.cause });
  }
}

/**
 * A cluster could not be reached (`retriable`: it may come up; `mirrorflow run` waits for it) or
 * refused our credentials or certificates (not retriable: the run cannot start).
 */
export class ClusterUnavailableError extends MirrorflowError {
  override readonly name = 'ClusterUnavailableError';
  override readonly code = 'CLUSTER_UNAVAILABLE';
  override readonly retriable: boolean;

  constructor(
    readonly cluster: string,
    /** What is wrong, without the cluster's name: `cannot be reached (…)`. */
    readonly reason: string,
    options: ErrorOptions & { readonly retriable?: boolean } = {},
  ) {
    super(`Cluster "${cluster}": ${reason}`, options);
    this.retriable = options.retriable ?? false;
  }
}

/**
 * Something mirrorflow asks that is not a Kafka cluster (those are ClusterUnavailableError) cannot
 * be reached, or does not answer as it should: the HTTP endpoint of a running `mirrorflow run`.
 */
export class EndpointUnavailableError extends MirrorflowError {
  override readonly name = 'EndpointUnavailableError';
  override readonly code = 'ENDPOINT_UNAVAILABLE';
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

/** What went wrong, as the `kind` label of `mirrorflow_errors_total` names it. */
export type ErrorKind =
  'transport-retriable' | 'transport' | 'unavailable' | 'authorization' | 'record-refused' | 'transform-failed' | 'checkpoint-failed' | 'config' | 'other';
export const ERROR_KINDS: readonly ErrorKind[] = [
  'transport-retriable',
  'transport',
  'unavailable',
  'authorization',
  'record-refused',
  'transform-failed',
  'checkpoint-failed',
  'config',
  'other',
];

/**
 * The kind of an error, from its class: a missing ACL, a cluster unreachable or refusing our
 * credentials, a failure talking to a cluster (retriable or not), a record the target refuses,
 * a transform or plugin failing. `checkpoint-failed` is never derived: the checkpoint flow names
 * its own failures that have no other kind.
 */
export function errorKind(error: unknown): ErrorKind {
  if (error instanceof KafkaAuthorizationError) return 'authorization';
  if (error instanceof KafkaTransportError) return error.retriable ? 'transport-retriable' : 'transport';
  if (error instanceof ClusterUnavailableError) return 'unavailable';
  if (error instanceof RecordRefusedError) return 'record-refused';
  if (error instanceof RecordFailedError) return error.stage.kind === 'transform' ? 'transform-failed' : 'record-refused';
  if (error instanceof PluginError) return 'transform-failed';
  if (error instanceof ConfigError) return 'config';
  return 'other';
}

/** The cluster an error names, if it names one. */
export function errorCluster(error: unknown): string | undefined {
  if (error instanceof KafkaTransportError || error instanceof ClusterUnavailableError || error instanceof RecordRefusedError) return error.cluster;
  return undefined;
}
