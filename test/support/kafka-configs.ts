/**
 * Topic config changes the way users make them: Kafka's own `kafka-configs.sh` (the class
 * `kafka.admin.ConfigCommand`, which alters through the Java AdminClient), run from the Kafka
 * jars of the launcher. Tests change configs with it rather than with mirrorflow's own admin,
 * which is what they test.
 */
import { execFile } from 'node:child_process';
import { defaultKafkaVersion, ensureKafkaDistribution, javaCommand } from '../../src/local';

export interface ConfigChange {
  /** `name=value` pairs to set (`--add-config`). */
  readonly set?: Readonly<Record<string, string>>;
  /** Names whose topic override is removed (`--delete-config`). */
  readonly delete?: readonly string[];
}

/** `kafka-configs.sh --bootstrap-server B --alter --entity-type topics --entity-name TOPIC …`. */
export async function alterTopicConfig(bootstrap: string, topic: string, change: ConfigChange, version = defaultKafkaVersion()): Promise<void> {
  const distribution = await ensureKafkaDistribution(version);
  const set = Object.entries(change.set ?? {}).map(([k, v]) => `${k}=${v}`);
  const args = ['--bootstrap-server', bootstrap, '--alter', '--entity-type', 'topics', '--entity-name', topic];
  if (set.length > 0) args.push('--add-config', set.join(','));
  if ((change.delete ?? []).length > 0) args.push('--delete-config', change.delete!.join(','));
  const java = javaCommand(distribution, { mainClass: 'kafka.admin.ConfigCommand', args, logDir: undefined, profile: 'tool' });
  await new Promise<void>((resolve, reject) => {
    execFile(java.command, java.args, { timeout: 120_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kafka-configs.sh ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`, { cause: error }));
      else resolve();
    });
  });
}
