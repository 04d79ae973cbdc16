#!/usr/bin/env node
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { buildProgram } from './program';
import { ExitCode, exitCodeFor } from './exit-codes';
import { describeError } from '../core/errors';
import { redactText } from '../telemetry/redact';

/** The entry point: the only place that calls process.exit. */
async function main(argv: readonly string[]): Promise<number> {
  try {
    await buildProgram().parseAsync(argv as string[]);
    return ExitCode.ok;
  } catch (error) {
    if (error instanceof CommanderError) {
      return error.exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // Masked like log lines: an error may quote what a server or a client library said.
    process.stderr.write(`mirrorflow: ${redactText(describeError(error))}\n`);
    return exitCodeFor(error);
  }
}

void main(process.argv).then((code) => {
  // Exit explicitly: a client library may still hold sockets or timers after a failed run, and
  // a replicator that hangs instead of exiting hides its failure from supervisors.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
});
