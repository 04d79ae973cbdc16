import { type Command, InvalidArgumentError, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';

interface TranslateFlags extends ToolCommonFlags {
  readonly group?: string;
  readonly groups?: string;
  readonly from?: string;
  readonly to?: string;
  readonly topic?: string;
  readonly partition?: number;
  readonly offset?: number;
}

function wholeNumber(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n)) throw new InvalidArgumentError('expected a whole number, 0 or more');
  return n;
}

/** `mirrorflow offsets translate FILE --group G`: consumer offsets translated through the checkpoints. */
export function registerOffsetsCommand(program: Command): void {
  const offsets = program.command('offsets').description('Consumer group offsets across the clusters of a pipeline.');
  const translate = offsets
    .command('translate')
    .description(
      "Print a group's offsets on the flow's target, translated from the checkpoints the flow wrote there " +
        "(what MM2's RemoteClusterUtils.translateOffsets answers). With --topic (its name on either cluster) and --partition, only those; " +
        'with --offset too, that source offset translated through the nearest offset sync at or before it, for applications that keep their own offsets. ' +
        'A running `mirrorflow run` answers the same over HTTP: GET /offsets/translate?group=G&topic=T[&partition=P&offset=O].',
    )
    .argument('<file>', PIPELINE_FILE)
    .option('-g, --group <id>', 'consumer group id')
    .option('--groups <regex>', 'every group whose id fully matches this Java regex (KIP-1239)')
    .addOption(new Option('--from <cluster>', "the group's cluster, the flow's source").default(undefined, "the only flow's"))
    .addOption(new Option('--to <cluster>', "the cluster to translate to, the flow's target").default(undefined, "the only flow's"))
    .option('--topic <name>', 'only this topic, named as on the source or as on the target')
    .option('--partition <n>', 'only this partition of --topic', wholeNumber)
    .option('--offset <n>', 'translate this source offset of --topic and --partition through the nearest offset sync at or before it', wholeNumber);
  addToolCommonOptions(translate).action(async (file: string, flags: TranslateFlags) => {
    if (flags.group !== undefined && flags.groups !== undefined) translate.error('error: give one of --group <id> and --groups <regex>, not both');
    if (flags.group === undefined && flags.groups === undefined && flags.offset === undefined)
      translate.error('error: give --group <id> or --groups <regex>, or --topic, --partition and --offset');
    if (flags.partition !== undefined && flags.topic === undefined) translate.error('error: --partition needs --topic');
    if (flags.offset !== undefined && (flags.topic === undefined || flags.partition === undefined))
      translate.error('error: --offset needs --topic and --partition');
    const { offsetsTranslateAction } = await import('../actions/offsets-translate.action.js');
    return offsetsTranslateAction({
      ...toolCommonOptions(file, flags),
      group: flags.group,
      groupPattern: flags.groups,
      from: flags.from,
      to: flags.to,
      topic: flags.topic,
      partition: flags.partition,
      offset: flags.offset,
    });
  });
}
