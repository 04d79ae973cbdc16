/**
 * Kafka client quotas for fault tests, through Kafka's own `kafka-configs` tool
 * (`kafka.admin.ConfigCommand` in the jars the launcher runs): kafkajs has no AlterClientQuotas.
 */
import { execFile } from 'node:child_process';
import { defaultKafkaVersion, ensureKafkaDistribution, javaCommand } from '../../src/local';

export interface ClientQuota {
  /** Bytes per second each client may produce (`producer_byte_rate`); undefined removes it. */
  readonly producerByteRate?: number;
}

/**
 * Sets the default quota of every client of the cluster at `bootstrap` (`--entity-type clients
 * --entity-default`), as an operator would with `kafka-configs.sh --alter`. The broker applies it
 * within a second or so (it reads quotas from its metadata log).
 */
export async function setDefaultClientQuota(bootstrap: string, quota: ClientQuota): Promise<void> {
  const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
  const change =
    quota.producerByteRate === undefined ? ['--delete-config', 'producer_byte_rate'] : ['--add-config', `producer_byte_rate=${quota.producerByteRate}`];
  const java = javaCommand(distribution, {
    mainClass: 'kafka.admin.ConfigCommand',
    args: ['--bootstrap-server', bootstrap, '--alter', '--entity-type', 'clients', '--entity-default', ...change],
    profile: 'tool',
  });
  await new Promise<void>((resolve, reject) => {
    execFile(java.command, [...java.args], { timeout: 60_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kafka-configs --alter ${change.join(' ')} failed: ${error.message}\n${stdout}\n${stderr}`, { cause: error }));
      else resolve();
    });
  });
}
