import { type Command, InvalidArgumentError, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
import { collectValues } from './collect-values';
import { positiveMs } from './tool-options';

interface VerifyFlags {
  readonly set: string[];
  readonly pluginDir: string[];
  readonly flow: string[];
  readonly topics: string[];
  readonly from?: RangeBoundFlag;
  readonly to?: RangeBoundFlag;
  readonly window: number;
  readonly timeout: number;
  readonly json?: boolean;
  readonly progress?: boolean;
  readonly logLevel?: 'error' | 'warn' | 'info' | 'debug';
}

export type RangeBoundFlag = { readonly offset: number } | { readonly time: number };

/** `--from` / `--to`: an offset (a whole number), or a time (ISO 8601, e.g. 2026-05-01T12:00:00Z). */
export function rangeBound(value: string): RangeBoundFlag {
  if (/^\d+$/.test(value)) return { offset: Number(value) };
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) throw new InvalidArgumentError('expected an offset (a whole number) or a time (ISO 8601, e.g. 2026-05-01T12:00:00Z)');
  return { time };
}

function records(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1024) throw new InvalidArgumentError('expected a whole number of records, at least 1024');
  return n;
}

/** `mirrorflow verify FILE`: compares each flow's target with its source, record by record, read-only; exit 1 when records are missing, duplicated or unexpected. */
export function registerVerifyCommand(program: Command): void {
  program
    .command('verify')
    .description(
      "Read each flow's source partitions and their copies on the target, in order, and report per partition the records missing on the target, duplicates, unexpected records (copies of no source record) and those behind (past the flow's stored progress, not copied yet). Records are matched by key, value, headers and timestamp, after the flow's transforms; read-only, in bounded memory. Exits 0 when nothing is missing, duplicated or unexpected, 1 otherwise.",
    )
    .argument('<file>', PIPELINE_FILE)
    .option('--flow <source->target>', 'verify this flow only (repeatable; every enabled flow when not given)', collectValues, [])
    .option(
      '--topics <names>',
      'source topics to verify, by name or Java regex, comma-separated (repeatable)',
      (value: string, previous: string[]) => [
        ...previous,
        ...value
          .split(',')
          .map((t) => t.trim())
          .filter((t) => t !== ''),
      ],
      [],
    )
    .option('--from <offset|time>', "start of the range on every source partition: an offset, or a time (ISO 8601); the log's start when not given", rangeBound)
    .option('--to <offset|time>', "end of the range (exclusive): an offset, or a time (ISO 8601); the log's end when not given", rangeBound)
    .option(
      '--window <records>',
      'source records held at once per partition, about 60 bytes each: a replay or a hole longer than half of it is counted as unexpected and missing records',
      records,
      1 << 20,
    )
    .option('--timeout <ms>', "give up reading a flow's offset syncs to their end after this long", positiveMs, 30_000)
    .option('--json', 'print the report as JSON')
    .option('--no-progress', 'no progress line on a terminal')
    .option('-s, --set <path=value>', 'override a value of the file, as run does (repeatable)', collectValues, [])
    .option('--plugin-dir <dir>', 'another folder of compiled transform plugins (repeatable)', collectValues, [])
    .addOption(new Option('--log-level <level>', 'log level on stderr').choices(['error', 'warn', 'info', 'debug']).default('warn'))
    .action(async (file: string, flags: VerifyFlags) =>
      (await import('../actions/verify.action.js')).verifyAction({
        file,
        set: flags.set,
        pluginDirs: flags.pluginDir,
        flows: flags.flow,
        topics: flags.topics,
        ...(flags.from === undefined ? {} : { from: flags.from }),
        ...(flags.to === undefined ? {} : { to: flags.to }),
        window: flags.window,
        timeoutMs: flags.timeout,
        json: flags.json === true,
        progress: flags.progress !== false,
        logLevel: flags.logLevel ?? 'warn',
      }),
    );
}
