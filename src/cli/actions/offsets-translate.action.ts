import { translateOffsets, type TranslateOffsetsResult } from '../../pipeline/tools';
import { textTable, timeWithAge } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';

export interface OffsetsTranslateOptions extends ToolCommonOptions {
  /** Exactly one of `group` and `groupPattern`. */
  readonly group?: string;
  readonly groupPattern?: string;
  readonly from?: string;
  readonly to?: string;
}

/**
 * `mirrorflow offsets translate FILE --group G`: the group's offsets on the flow's target, as
 * RemoteClusterUtils.translateOffsets gives them, per topic-partition (a table, or JSON).
 */
export async function offsetsTranslateAction(options: OffsetsTranslateOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const result = await withPipelineTools(options, (tools) =>
    translateOffsets(tools, { from: options.from, to: options.to, group: options.group, groupPattern: options.groupPattern, timeoutMs: options.timeoutMs }),
  );
  out.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : renderTranslation(result, options.groupPattern !== undefined));
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
