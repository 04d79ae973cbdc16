import {
  ClusterUnavailableError,
  ConfigError,
  EndpointUnavailableError,
  KafkaAuthorizationError,
  LocalKafkaError,
  MirrorflowError,
  PluginError,
  RecordFailedError,
} from '../core/errors';
import { SchemaRegistryError, SchemaRegistryUnavailableError } from '../core/ports/schema-registry';
import { SchemaCopyRefusedError, ToolUsageError } from '../pipeline/tools/tool-errors';

import { ExitCode } from './exit-code-table';

export { EXIT_CODE_MEANINGS, ExitCode } from './exit-code-table';

/** The one mapping from what went wrong to the exit code, for every command (main.ts, the only caller of process.exit). */
export function exitCodeFor(error: unknown): number {
  // Before PluginError: a transform that throws on a record at runtime is not a config problem.
  if (error instanceof RecordFailedError) return ExitCode.dataError;
  // `schemas copy`: the target registry refused versions (incompatible), the rest copied.
  if (error instanceof SchemaCopyRefusedError) return ExitCode.dataError;
  if (error instanceof ConfigError || error instanceof PluginError) return ExitCode.config;
  if (error instanceof ToolUsageError) return ExitCode.usage;
  if (error instanceof ClusterUnavailableError) return ExitCode.unavailable;
  // A Schema Registry that refused the credentials, or a URL that is not one.
  if (error instanceof SchemaRegistryError) return ExitCode.unavailable;
  // Only a one-shot command (`schemas copy`) ends on an outage of a registry: a flow retries it.
  if (error instanceof SchemaRegistryUnavailableError) return ExitCode.unavailable;
  // `status`: no mirrorflow answers at the URL.
  if (error instanceof EndpointUnavailableError) return ExitCode.unavailable;
  if (error instanceof KafkaAuthorizationError) return ExitCode.noPermission;
  if (error instanceof LocalKafkaError) return ExitCode.unavailable;
  if (error instanceof MirrorflowError) return ExitCode.failure;
  return ExitCode.software;
}
