/**
 * Config changes the way users make them: Kafka's own `kafka-configs.sh` (the class
 * `kafka.admin.ConfigCommand`, which alters through the Java AdminClient), run from the Kafka
 * jars of the launcher. Tests change and read topic and group configs with it rather than with
 * mirrorflow's own admin, which is what they test.
 */
import { execFile } from 'node:child_process';
import { defaultKafkaVersion, ensureKafkaDistribution, javaCommand } from '../../src/local';

export interface ConfigChange {
  /** `name=value` pairs to set (`--add-config`). */
  readonly set?: Readonly<Record<string, string>>;
  /** Names whose override is removed (`--delete-config`). */
  readonly delete?: readonly string[];
}

type EntityType = 'topics' | 'groups';

async function configCommand(args: readonly string[], version: string): Promise<string> {
  const distribution = await ensureKafkaDistribution(version);
  const java = javaCommand(distribution, { mainClass: 'kafka.admin.ConfigCommand', args: [...args], logDir: undefined, profile: 'tool' });
  return new Promise<string>((resolve, reject) => {
    execFile(java.command, java.args, { timeout: 120_000, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kafka-configs.sh ${args.join(' ')} failed: ${error.message}\n${stdout}${stderr}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

async function alterConfig(bootstrap: string, entityType: EntityType, name: string, change: ConfigChange, version: string): Promise<void> {
  const set = Object.entries(change.set ?? {}).map(([k, v]) => `${k}=${v}`);
  const args = ['--bootstrap-server', bootstrap, '--alter', '--entity-type', entityType, '--entity-name', name];
  if (set.length > 0) args.push('--add-config', set.join(','));
  if ((change.delete ?? []).length > 0) args.push('--delete-config', change.delete!.join(','));
  await configCommand(args, version);
}

/** `kafka-configs.sh --bootstrap-server B --alter --entity-type topics --entity-name TOPIC …`. */
export function alterTopicConfig(bootstrap: string, topic: string, change: ConfigChange, version = defaultKafkaVersion()): Promise<void> {
  return alterConfig(bootstrap, 'topics', topic, change, version);
}

/** `kafka-configs.sh --bootstrap-server B --alter --entity-type groups --entity-name GROUP …` (Kafka 4.0+). */
export function alterGroupConfig(bootstrap: string, group: string, change: ConfigChange, version = defaultKafkaVersion()): Promise<void> {
  return alterConfig(bootstrap, 'groups', group, change, version);
}

/** The configs set on a group: `kafka-configs.sh --describe --entity-type groups --entity-name GROUP`, parsed. */
export async function groupConfigs(bootstrap: string, group: string, version = defaultKafkaVersion()): Promise<Map<string, string>> {
  const out = await configCommand(['--bootstrap-server', bootstrap, '--describe', '--entity-type', 'groups', '--entity-name', group], version);
  // "  share.auto.offset.reset=earliest sensitive=false synonyms={…}", one line per config.
  const configs = new Map<string, string>();
  for (const match of out.matchAll(/^\s+([a-z][a-z0-9.]*)=(\S*) sensitive=/gm)) configs.set(match[1]!, match[2]!);
  return configs;
}
