import type { Command } from 'commander';

/** `mirrorflow demo`: see replication work on this machine in a minute. */
export function registerDemoCommand(program: Command): void {
  program
    .command('demo')
    .description('Start two local Kafka clusters, replicate sample data with pipelines/primary-to-backup.yaml, and check the copy.')
    .option('--records <n>', 'records written before replication starts, and again while it runs', '50000')
    .option('--stay', 'after the copy is complete, keep replicating and serving HTTP until Ctrl-C, then check the copy', false)
    .action(async (flags: { records: string; stay: boolean }) =>
      (await import('../actions/demo.action.js')).demoAction({ records: Number(flags.records), out: process.stdout, stay: flags.stay }),
    );
}
