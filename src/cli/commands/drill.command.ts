import { type Command, InvalidArgumentError, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';

interface DrillFlags extends ToolCommonFlags {
  readonly group: string;
  readonly from?: string;
  readonly to?: string;
  readonly dryRun?: boolean;
  readonly maxWait: number;
}

function positiveMs(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new InvalidArgumentError('expected a positive number of milliseconds');
  return n;
}

/** `mirrorflow drill FILE --group G`: a DR drill of one consumer group, while replication goes on (src/pipeline/tools/drill.ts). */
export function registerDrillCommand(program: Command): void {
  const drill = program
    .command('drill')
    .description(
      "Rehearse the failover of a consumer group while replication goes on, and measure it: a drill group of its own is given the group's " +
        "translated offsets on the flow's target and consumes the remote topics to their end at the drill point. Reports the RPO (records and " +
        'seconds of the source not on the target at the drill point), the RTO (from the drill point until the drill consumer read everything there), ' +
        'and how many records the group would read again. The group itself is only read; the drill group is deleted afterwards, also when interrupted.',
    )
    .argument('<file>', PIPELINE_FILE)
    .requiredOption('-g, --group <id>', 'the consumer group to rehearse the failover of')
    .addOption(new Option('--from <cluster>', "the cluster the group consumes from, the flow's source").default(undefined, "the only flow's"))
    .addOption(new Option('--to <cluster>', "the cluster it would fail over to, the flow's target").default(undefined, "the only flow's"))
    .option('--dry-run', 'print the drill point, the offsets the drill group would start at and every step, in order; change nothing')
    .option('--max-wait <ms>', 'how long the drill consumer may take to reach the end', positiveMs, 600_000);
  addToolCommonOptions(drill).action(async (file: string, flags: DrillFlags) =>
    (await import('../actions/drill.action.js')).drillAction({
      ...toolCommonOptions(file, flags),
      group: flags.group,
      from: flags.from,
      to: flags.to,
      dryRun: flags.dryRun === true,
      maxConsumeMs: flags.maxWait,
    }),
  );
}
