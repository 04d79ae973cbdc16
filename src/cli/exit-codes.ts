import { ClusterUnavailableError, ConfigError, LocalKafkaError, MirrorflowError, PluginError } from '../core/errors';
import { ToolUsageError } from '../pipeline/tools';

/** Exit codes, following sysexits(3) where one fits. */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 64,
  unavailable: 69,
  software: 70,
  config: 78,
} as const;

export function exitCodeFor(error: unknown): number {
  if (error instanceof ConfigError || error instanceof PluginError) return ExitCode.config;
  if (error instanceof ToolUsageError) return ExitCode.usage;
  if (error instanceof ClusterUnavailableError) return ExitCode.unavailable;
  if (error instanceof LocalKafkaError) return ExitCode.unavailable;
  if (error instanceof MirrorflowError) return ExitCode.failure;
  return ExitCode.software;
}
