import { PipelineTools } from '../../pipeline/tools';
import { createLogger } from '../../telemetry';

/** What every pipeline tool command takes besides its own flags. */
export interface ToolCommonOptions {
  readonly file: string;
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly json: boolean;
  /** Reading a topic to its end gives up after this long, ms. */
  readonly timeoutMs: number;
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
}

/**
 * Opens the pipeline's tools, runs `work`, and closes every client whatever happens. Logs go
 * to stderr (warnings by default, e.g. skipped malformed records) so stdout holds only the report.
 */
export async function withPipelineTools<T>(options: ToolCommonOptions, work: (tools: PipelineTools) => Promise<T>): Promise<T> {
  const logger = createLogger({ level: options.logLevel ?? 'warn', format: 'text' });
  const tools = await PipelineTools.open({ file: options.file, set: options.set, pluginDirs: options.pluginDirs, logger });
  try {
    return await work(tools);
  } finally {
    await tools.close();
  }
}
