import { Argument, type Command, InvalidArgumentError, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { collectValues } from './collect-values';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';

interface MigrateFlags extends ToolCommonFlags {
  readonly from?: string;
  readonly to?: string;
  readonly group: string[];
  readonly dryRun?: boolean;
  readonly wait: number;
  readonly force?: boolean;
  readonly quiet: number;
}

function ms(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new InvalidArgumentError('expected a number of milliseconds');
  return n;
}

/** `mirrorflow migrate FILE status|cutover|finish`: a guided, resumable move of a flow's consumers and producers to its target (src/pipeline/tools/migrate.ts). */
export function registerMigrateCommand(program: Command): void {
  const migrate = program
    .command('migrate')
    .description(
      "Move consumers and producers from a flow's source to its target, step by step. " +
        'status: per replicated partition, offsets preserved or translated (and why) and replication lag; per consumer group, ready to cut over or why not; the steps taken. ' +
        "cutover --group G: refuse a group with active members on the target, stop the flow's offset sync for it, wait until the target holds everything " +
        'below its source offsets, commit its offsets there (preserved partitions as they are, translated ones through the checkpoints) and print what to repoint. ' +
        'finish, after the last producer moved: check the source topics get no more records, wait until everything is replicated, stop the flow for good ' +
        '(every process running it stops; it does not start again) and print a summary; the target topics stay ordinary, writable topics. ' +
        'Each step is recorded on the target (mm2-migration.<source>.internal), so it can be run again after a crash and status shows it.',
    )
    .argument('<file>', PIPELINE_FILE)
    .addArgument(new Argument('<step>', 'the step').choices(['status', 'cutover', 'finish']))
    .option('-g, --group <id>', 'cutover: a consumer group to cut over (repeatable)', collectValues, [])
    .addOption(new Option('--from <cluster>', "the flow's source").default(undefined, "the only flow's"))
    .addOption(new Option('--to <cluster>', "the flow's target").default(undefined, "the only flow's"))
    .option('--dry-run', 'say what the step would do, and change nothing')
    .option('--wait <ms>', 'cutover, finish: how long to wait for replication, checkpoints and the flow to stop', ms, 300_000)
    .option('--force', 'finish: although the source topics still get records')
    .option('--quiet <ms>', 'finish: how long the source topics are watched for new records', ms, 10_000);
  addToolCommonOptions(migrate).action(async (file: string, step: 'status' | 'cutover' | 'finish', flags: MigrateFlags) => {
    const { migrateCutoverAction, migrateFinishAction, migrateStatusAction } = await import('../actions/migrate.action.js');
    const base = { ...toolCommonOptions(file, flags), from: flags.from, to: flags.to };
    if (step !== 'cutover' && flags.group.length > 0) migrate.error(`error: --group is for migrate FILE cutover, not ${step}`);
    switch (step) {
      case 'status':
        return migrateStatusAction(base);
      case 'cutover':
        if (flags.group.length === 0) migrate.error('error: migrate FILE cutover needs at least one --group <id>');
        return migrateCutoverAction({ ...base, dryRun: flags.dryRun === true, waitMs: flags.wait, groups: flags.group });
      case 'finish':
        return migrateFinishAction({ ...base, dryRun: flags.dryRun === true, waitMs: flags.wait, force: flags.force === true, quietMs: flags.quiet });
    }
  });
}
