/**
 * The command line itself, run by main.ts: from `npm run build` on as one bundle of this module and
 * everything it imports (scripts/bundle-cli.mjs), from the separate files of dist when there is no
 * current bundle (load-cli.ts).
 */
import 'reflect-metadata';
import { CommanderError } from 'commander';
import { buildProgram } from './program';
import { ExitCode, exitCodeFor } from './exit-codes';
import { failureText } from './failure-text';
import { ConfigError } from '../core/errors';
import { knownSecrets } from '../core/secrets';
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
    // Other errors are masked like log lines: they may quote what a server or a client library
    // said. Configuration problems never quote a secret's value; they name keys, and their
    // `key: message` shape would read as a secret to the masking by shape (`sasl.jaas.config: …`).
    const text = failureText(error);
    process.stderr.write(error instanceof ConfigError ? knownSecrets.mask(text) : redactText(text));
    return exitCodeFor(error);
  }
}

const exit = (code: number): void => {
  // Exit explicitly: a client library may still hold sockets or timers after a failed run, and
  // a replicator that hangs instead of exiting hides its failure from supervisors.
  process.stdout.write('', () => process.stderr.write('', () => process.exit(code)));
};
// main reports every failure itself; this is for a failure while reporting one (no text: it may quote a secret).
void main(process.argv).then(exit, () => {
  process.stderr.write('mirrorflow failed while reporting a failure.\n');
  exit(ExitCode.software);
});
