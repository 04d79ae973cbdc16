import { Argument, type Command, InvalidArgumentError, Option } from 'commander';

interface StatusFlags {
  readonly json: boolean;
  readonly timeout: number;
  readonly watch: boolean;
  readonly interval: number;
}

/** `mirrorflow status [URL]`: what a running `mirrorflow run` is doing, from its HTTP endpoint. */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Show the flows and partitions of a running `mirrorflow run`, from its HTTP endpoint (GET /status); without a URL, of every `mirrorflow run` on this host. ' +
        '(`mirrorflow local status` lists local Kafka clusters; `mirrorflow migrate FILE status`, where a migration stands.)',
    )
    .addArgument(
      new Argument('[url]', 'where the process serves HTTP, e.g. http://127.0.0.1:9464 (its http.listen or --http)').default(
        undefined,
        'the processes of this host',
      ),
    )
    .option('--json', 'print the /status document as it is', false)
    .option('--timeout <ms>', 'how long to wait for the answer', positiveMs, 10_000)
    .addOption(
      new Option('-w, --watch', 'redraw the table in place every --interval, with records/s, MB/s and time to catch up, until Ctrl-C')
        .default(false)
        .conflicts('json'),
    )
    .option('--interval <ms>', 'how often --watch asks', positiveMs, 1000)
    .action(async (url: string | undefined, flags: StatusFlags) => {
      if (!flags.watch) return (await import('../actions/status.action.js')).statusAction({ url, json: flags.json, timeoutMs: flags.timeout });
      return (await import('../actions/status-watch.action.js')).watchStatus({ url, intervalMs: flags.interval, timeoutMs: flags.timeout });
    });
}

/** A usage error, with the command's usage line, before anything is asked. */
function positiveMs(text: string): number {
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms <= 0) throw new InvalidArgumentError(`expected a number of milliseconds above 0, not "${text}"`);
  return ms;
}
