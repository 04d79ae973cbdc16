import { type Command, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';

interface FailoverFlags extends ToolCommonFlags {
  readonly group: string;
  readonly from?: string;
  readonly to?: string;
  readonly dryRun?: boolean;
  readonly force?: boolean;
}

/** `mirrorflow failover FILE --group G`: move a stopped consumer group to the flow's target. */
export function registerFailoverCommand(program: Command): void {
  const failover = program
    .command('failover')
    .description(
      "Fail a stopped consumer group over to the flow's target: check it has no active members there, translate its offsets " +
        'from the checkpoints, and commit them on the target (never moving an offset backwards unless --force). ' +
        "A share group's start offsets are read on the source and translated through the offset syncs.",
    )
    .argument('<file>', PIPELINE_FILE)
    .requiredOption('-g, --group <id>', 'consumer group id')
    .addOption(new Option('--from <cluster>', "the cluster the group consumed from, the flow's source").default(undefined, "the only flow's"))
    .addOption(new Option('--to <cluster>', "the cluster to move the group to, the flow's target").default(undefined, "the only flow's"))
    .option('--dry-run', 'print what would be committed, and write nothing')
    .option('--force', 'also move target offsets backwards when the checkpoint is behind them');
  addToolCommonOptions(failover).action(async (file: string, flags: FailoverFlags) =>
    (await import('../actions/failover.action.js')).failoverAction({
      ...toolCommonOptions(file, flags),
      group: flags.group,
      from: flags.from,
      to: flags.to,
      dryRun: flags.dryRun === true,
      force: flags.force === true,
    }),
  );
}
