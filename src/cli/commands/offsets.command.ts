import { type Command, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';

interface TranslateFlags extends ToolCommonFlags {
  readonly group?: string;
  readonly groups?: string;
  readonly from?: string;
  readonly to?: string;
}

/** `mirrorflow offsets translate FILE --group G`: consumer offsets translated through the checkpoints. */
export function registerOffsetsCommand(program: Command): void {
  const offsets = program.command('offsets').description('Consumer group offsets across the clusters of a pipeline.');
  const translate = offsets
    .command('translate')
    .description(
      "Print a group's offsets on the flow's target, translated from the checkpoints the flow wrote there " +
        "(what MM2's RemoteClusterUtils.translateOffsets answers).",
    )
    .argument('<file>', PIPELINE_FILE)
    .option('-g, --group <id>', 'consumer group id')
    .option('--groups <regex>', 'every group whose id fully matches this Java regex (KIP-1239)')
    .addOption(new Option('--from <cluster>', "the group's cluster, the flow's source").default(undefined, "the only flow's"))
    .addOption(new Option('--to <cluster>', "the cluster to translate to, the flow's target").default(undefined, "the only flow's"));
  addToolCommonOptions(translate).action(async (file: string, flags: TranslateFlags) => {
    if ((flags.group === undefined) === (flags.groups === undefined)) translate.error('error: give exactly one of --group <id> and --groups <regex>');
    const { offsetsTranslateAction } = await import('../actions/offsets-translate.action.js');
    return offsetsTranslateAction({ ...toolCommonOptions(file, flags), group: flags.group, groupPattern: flags.groups, from: flags.from, to: flags.to });
  });
}
