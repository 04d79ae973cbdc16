import type { Command } from 'commander';
import { MirrorflowError } from '../../core/errors';

interface StatusFlags {
  readonly json: boolean;
  readonly timeout: string;
  readonly watch: boolean;
  readonly interval: string;
}

/** `mirrorflow status [URL]`: what a running `mirrorflow run` is doing, from its HTTP endpoint. */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description(
      'Show the flows and partitions of a running `mirrorflow run`, from its HTTP endpoint (GET /status); without a URL, of every `mirrorflow run` on this host.',
    )
    .argument('[url]', 'where the process serves HTTP, e.g. http://127.0.0.1:9464 (its http.listen or --http); default: the processes of this host')
    .option('--json', 'print the /status document as it is', false)
    .option('--timeout <ms>', 'how long to wait for the answer', '10000')
    .option('-w, --watch', 'redraw the table in place every --interval, with records/s, MB/s and time to catch up, until Ctrl-C', false)
    .option('--interval <ms>', 'how often --watch asks', '1000')
    .action(async (url: string | undefined, flags: StatusFlags) => {
      const timeoutMs = positiveMs(flags.timeout, '--timeout');
      if (!flags.watch) return (await import('../actions/status.action.js')).statusAction({ url, json: flags.json, timeoutMs });
      if (flags.json) throw new MirrorflowError('--watch draws a table; it does not go with --json.');
      return (await import('../actions/status-watch.action.js')).watchStatus({ url, intervalMs: positiveMs(flags.interval, '--interval'), timeoutMs });
    });
}

function positiveMs(text: string, option: string): number {
  const ms = Number(text);
  if (!Number.isFinite(ms) || ms <= 0) throw new MirrorflowError(`${option} must be a number of milliseconds above 0, not "${text}".`);
  return ms;
}
