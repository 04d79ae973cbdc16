import { type Command, InvalidArgumentError, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { collectValues } from './collect-values';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';

interface FailbackFlags extends ToolCommonFlags {
  readonly group: string[];
  readonly from?: string;
  readonly to?: string;
  readonly dryRun?: boolean;
  readonly force?: boolean;
  readonly quiet: number;
}

function ms(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a number of milliseconds');
  return n;
}

/** `mirrorflow failback FILE`: after a failover, back to the flow's source (src/pipeline/tools/failback.ts). */
export function registerFailbackCommand(program: Command): void {
  const failback = program
    .command('failback')
    .description(
      "After a failover to a flow's target, move back to its source once it is back: copy back what the target received since the failover " +
        "(on partitions that keep their offsets, cut the source's records that never reached the target, saved aside, and restore it from the target: " +
        "truncate and restore), translate the groups' offsets back, and store the flow's progress so it goes on from there. " +
        'Needs the flow stopped, the groups and the producers stopped on the target.',
    )
    .argument('<file>', PIPELINE_FILE)
    .addOption(
      new Option('-g, --group <id>', 'a consumer group to move back (repeatable)')
        .argParser(collectValues)
        .default([], 'every group of the flow with offsets on its topics on the target'),
    )
    .addOption(new Option('--from <cluster>', "the flow's source: the old primary, to move back to").default(undefined, "the only flow's"))
    .addOption(new Option('--to <cluster>', "the flow's target: the new primary, failed over to").default(undefined, "the only flow's"))
    .option('--dry-run', 'print where each partition failed over and every step, in order; change nothing')
    .option('--force', "although the target's topics still get records")
    .option('--quiet <ms>', "how long the target's topics are watched for new records", ms, 10_000);
  addToolCommonOptions(failback).action(async (file: string, flags: FailbackFlags) =>
    (await import('../actions/failback.action.js')).failbackAction({
      ...toolCommonOptions(file, flags),
      groups: flags.group,
      from: flags.from,
      to: flags.to,
      dryRun: flags.dryRun === true,
      force: flags.force === true,
      quietMs: flags.quiet,
    }),
  );
}
