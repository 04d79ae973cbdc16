/**
 * `GET /offsets/translate` of a running `mirrorflow run`: the query answered by the same code as
 * `mirrorflow offsets translate --json` (translate-offsets.ts), against the pipeline the process
 * runs now, with Kafka clients of its own made at the first request. Errors become HTTP answers
 * in Connect's error shape: a query the pipeline cannot answer (an unknown cluster, several
 * flows and no `from`/`to`, a bad regex) 400; no checkpoints topic on the target yet 404; a
 * cluster that cannot be reached, or a topic not read to its end in time, 503.
 */
import { ClusterUnavailableError, describeError, isRetriable, MirrorflowError } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';
import type { PipelineConfig } from '../../config';
import type { OffsetTranslateQuery, OffsetTranslator } from '../../telemetry/offsets-route';
import { PipelineTools } from './pipeline-tools';
import { CheckpointsTopicMissingError, ToolUsageError } from './tool-errors';
import { translateOffsets } from './translate-offsets';

export interface HttpOffsetTranslatorOptions {
  /** The configuration the pipeline runs now. */
  readonly config: () => PipelineConfig;
  /** The pipeline file, for messages. */
  readonly file: string;
  readonly logger: Logger;
  /** Give up reading a topic to its end after this long, ms (default 30 s). */
  readonly timeoutMs?: number;
}

export class HttpOffsetTranslator implements OffsetTranslator {
  private tools: PipelineTools | undefined;

  constructor(private readonly options: HttpOffsetTranslatorOptions) {}

  async translate(query: OffsetTranslateQuery): Promise<{ status: number; body: unknown }> {
    try {
      const result = await translateOffsets(this.toolsFor(), {
        ...query,
        ...(this.options.timeoutMs === undefined ? {} : { timeoutMs: this.options.timeoutMs }),
      });
      return { status: 200, body: result };
    } catch (error) {
      const status = statusOf(error);
      if (status >= 500) this.options.logger.warn('Translating offsets over HTTP failed.', { error: describeError(error) });
      return { status, body: { error_code: status, message: describeError(error) } };
    }
  }

  /** Closes the clients made for the requests, if any. */
  async close(): Promise<void> {
    const tools = this.tools;
    this.tools = undefined;
    await tools?.close();
  }

  private toolsFor(): PipelineTools {
    const config = this.options.config();
    // Clusters cannot change while a pipeline runs, so the clients stay; the flows may.
    if (this.tools === undefined) this.tools = PipelineTools.fromConfig(config, this.options.file, this.options.logger);
    else if (this.tools.config !== config) this.tools = this.tools.withConfig(config);
    return this.tools;
  }
}

function statusOf(error: unknown): number {
  if (error instanceof ToolUsageError) return 400;
  if (error instanceof CheckpointsTopicMissingError) return 404;
  if (error instanceof ClusterUnavailableError || isRetriable(error)) return 503;
  if (error instanceof MirrorflowError && /did not reach its end/.test(error.message)) return 503;
  return 500;
}
