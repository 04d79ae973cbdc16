import { translateOffsets, type TranslateOffsetsResult } from '../../pipeline/tools';
import { textTable, timeWithAge } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';

export interface OffsetsTranslateOptions extends ToolCommonOptions {
  /** Exactly one of `group` and `groupPattern`. */
  readonly group?: string;
  readonly groupPattern?: string;
  readonly from?: string;
  readonly to?: string;
  readonly topic?: string;
  readonly partition?: number;
  readonly offset?: number;
}

/**
 * `mirrorflow offsets translate FILE --group G`: the group's offsets on the flow's target, as
 * RemoteClusterUtils.translateOffsets gives them, per topic-partition (a table, or JSON).
 */
export async function offsetsTranslateAction(options: OffsetsTranslateOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const result = await withPipelineTools(options, (tools) =>
    translateOffsets(tools, {
      from: options.from,
      to: options.to,
      group: options.group,
      groupPattern: options.groupPattern,
      timeoutMs: options.timeoutMs,
      topic: options.topic,
      partition: options.partition,
      offset: options.offset,
    }),
  );
  if (options.json) out.write(`${JSON.stringify(result, null, 2)}\n`);
  else {
    const parts = [];
    if (options.group !== undefined || options.groupPattern !== undefined) parts.push(renderTranslation(result, options.groupPattern !== undefined));
    if (result.translation !== undefined) parts.push(renderOffsetTranslation(result));
    out.write(parts.join('\n'));
  }
}

/** One source offset translated: where a consumer resumes on the target, and how that was found. */
export function renderOffsetTranslation(result: TranslateOffsetsResult): string {
  const t = result.translation!;
  const what = `${t.topic}-${t.partition} offset ${t.sourceOffset} on ${result.source}`;
  if (t.offset === null) return `${what}: not translatable: ${t.reason ?? 'unknown'}.\n`;
  const how =
    t.translatedBy === 'preserved'
      ? 'the partition keeps its source offsets (offsets: preserve)'
      : `offset sync ${t.offsetSync!.upstreamOffset} -> ${t.offsetSync!.downstreamOffset}; consumers may re-read up to ${Math.max(0, t.sourceOffset - t.offsetSync!.upstreamOffset - 1)} record(s), never skip one`;
  return `${what} -> ${t.remoteTopic}-${t.partition} offset ${t.offset} on ${result.target} (${how})\n`;
}

export function renderTranslation(result: TranslateOffsetsResult, manyGroups: boolean, now: number = Date.now()): string {
  const where = `${result.checkpointsTopic} on ${result.target}`;
  const withOffsets = result.groups.filter((g) => g.offsets.length > 0);
  if (withOffsets.length === 0) {
    const who = manyGroups ? 'no group matching the pattern has any' : `group "${result.groups[0]?.group ?? ''}" has no`;
    return `No translated offsets: ${who} checkpoints in ${where} yet.\n`;
  }
  const header = manyGroups
    ? `Offsets on ${result.target} of ${withOffsets.length} group(s), translated from ${result.source} (${where}):\n`
    : `Offsets on ${result.target} of group "${withOffsets[0]!.group}", translated from ${result.source} (${where}):\n`;
  const preserved = new Set(result.preservedPartitions ?? []);
  const rows = [[...(manyGroups ? ['GROUP'] : []), 'TOPIC', 'PARTITION', 'OFFSET', 'SOURCE OFFSET', 'CHECKPOINTED', 'METADATA']];
  for (const g of withOffsets) {
    for (const o of g.offsets) {
      rows.push([
        ...(manyGroups ? [g.group] : []),
        o.topic,
        String(o.partition),
        preserved.has(`${o.topic}-${o.partition}`) ? `${o.offset} (preserved)` : String(o.offset),
        String(o.upstreamOffset),
        timeWithAge(o.checkpointedAt, now),
        o.metadata,
      ]);
    }
  }
  const note = preserved.size > 0 ? "(preserved): the partition holds the source offsets (offsets: preserve); the offset is the group's own.\n" : '';
  return header + textTable(rows) + note;
}
