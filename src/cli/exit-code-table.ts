/**
 * Exit codes, following sysexits(3) where one fits, and what each means: the same for every
 * command. `exit-codes.ts` maps error classes to them; the table of docs/cli.md and the end of
 * `mirrorflow --help` are `EXIT_CODE_MEANINGS` (exit-codes.spec.ts compares docs/cli.md with it).
 * Kept apart from the mapping so that `--help` loads no error classes of other layers.
 */
export const ExitCode = {
  ok: 0,
  failure: 1,
  usage: 64,
  /** A record could not be replicated (a transform threw, the target refused it) and errors.tolerance is none. */
  dataError: 65,
  unavailable: 69,
  /** A cluster refused an operation to mirrorflow's principal: an ACL is missing (sysexits' EX_NOPERM). */
  noPermission: 77,
  software: 70,
  config: 78,
} as const;

/** What each code means, for every command. */
export const EXIT_CODE_MEANINGS: readonly (readonly [code: number, label: string, meaning: string])[] = [
  [ExitCode.ok, 'done', 'a check passed, or a run stopped by SIGINT/SIGTERM after draining'],
  [
    ExitCode.failure,
    'found a problem',
    'the command ran and found something wrong: drift (`diff`), problems (`plan`), records missing, duplicated or unexpected on a target (`verify`), failed tests (`test`, `plugins check`), a refused failover or migration step',
  ],
  [
    ExitCode.usage,
    'usage',
    'the command line is wrong: an unknown option or command, a missing or bad argument, a cluster, flow or file the command cannot use; nothing was done',
  ],
  [ExitCode.dataError, 'record failed', 'a record could not be replicated (`errors.tolerance: none`), or a Schema Registry refused schemas (`schemas copy`)'],
  [
    ExitCode.unavailable,
    'unavailable',
    'something cannot be reached or refused the credentials: a cluster, a Schema Registry, the HTTP endpoint of a running mirrorflow (`status`), the local Kafka launcher',
  ],
  [ExitCode.software, 'bug', 'a bug in mirrorflow: please report it'],
  [ExitCode.noPermission, 'no permission', "a cluster refused an operation to mirrorflow's principal: an ACL is missing"],
  [ExitCode.config, 'configuration', 'the configuration has problems (the file, the files it names, a plugin), reported before anything connects'],
];
