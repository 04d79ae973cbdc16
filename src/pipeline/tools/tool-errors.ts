import { MirrorflowError, type ErrorOptions } from '../../core/errors';

/**
 * The command line asked for something the pipeline does not have: a cluster it does not
 * declare, a flow it does not run, or a direction that is ambiguous. The CLI exits with 64.
 */
export class ToolUsageError extends MirrorflowError {
  override readonly name = 'ToolUsageError';
  override readonly code = 'TOOL_USAGE';

  constructor(message: string, options: ErrorOptions = {}) {
    super(message, options);
  }
}

/** The checkpoints topic a translation needs does not exist on the cluster. */
export class CheckpointsTopicMissingError extends MirrorflowError {
  override readonly name = 'CheckpointsTopicMissingError';
  override readonly code = 'CHECKPOINTS_TOPIC_MISSING';

  constructor(
    readonly cluster: string,
    readonly topic: string,
    readonly remoteAlias: string,
  ) {
    super(
      `Cluster "${cluster}" has no topic ${topic}, so there is nothing to translate from "${remoteAlias}": ` +
        `checkpoints appear once a flow ${remoteAlias}->${cluster} with checkpoints enabled has run one checkpoint interval.`,
    );
  }
}

/** Failover cannot go ahead: the group is active, has no checkpoints yet, or the commit did not take. */
export class FailoverRefusedError extends MirrorflowError {
  override readonly name = 'FailoverRefusedError';
  override readonly code = 'FAILOVER_REFUSED';

  constructor(message: string, options: ErrorOptions = {}) {
    super(message, options);
  }
}

/** A migration step cannot go ahead (a group active on the target, a source still written to) or did not finish in time; its state stays as it was. */
export class MigrationRefusedError extends MirrorflowError {
  override readonly name = 'MigrationRefusedError';
  override readonly code = 'MIGRATION_REFUSED';

  constructor(message: string, options: ErrorOptions = {}) {
    super(message, options);
  }
}

/** `mirrorflow schemas copy`: the target registry refused versions (each reported); the CLI exits with 65 once the rest are copied. */
export class SchemaCopyRefusedError extends MirrorflowError {
  override readonly name = 'SchemaCopyRefusedError';
  override readonly code = 'SCHEMA_COPY_REFUSED';
}
