import type { Command } from 'commander';
import { statusAction } from '../actions/status.action';

interface StatusFlags {
  readonly json: boolean;
  readonly timeout: string;
}

/** `mirrorflow status URL`: what a running `mirrorflow run` is doing, from its HTTP endpoint. */
export function registerStatusCommand(program: Command): void {
  program
    .command('status')
    .description('Show the flows and partitions of a running `mirrorflow run`, from its HTTP endpoint (GET /status).')
    .argument('<url>', 'where the process serves HTTP, e.g. http://127.0.0.1:9464 (its http.listen or --http)')
    .option('--json', 'print the /status document as it is', false)
    .option('--timeout <ms>', 'how long to wait for the answer', '10000')
    .action((url: string, flags: StatusFlags) => statusAction({ url, json: flags.json, timeoutMs: Number(flags.timeout) }));
}
