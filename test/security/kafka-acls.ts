/**
 * Kafka's own `kafka-acls` tool (`org.apache.kafka.tools.AclCommand`, the Java admin client), run
 * from the jars the local clusters use: tests write and read ACLs the way operators do, not
 * through the client mirrorflow uses.
 */
import { execFile } from 'node:child_process';
import { defaultKafkaVersion, ensureKafkaDistribution, javaCommand } from '../../src/local';

export interface ListedAcl {
  readonly name: string;
  readonly patternType: 'LITERAL' | 'PREFIXED';
  readonly principal: string;
  readonly host: string;
  readonly operation: string;
  readonly permission: 'ALLOW' | 'DENY';
}

/** Runs `kafka-acls --bootstrap-server <bootstrap> <args>`; resolves with its stdout. */
export async function kafkaAcls(bootstrap: string, args: readonly string[]): Promise<string> {
  const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
  const { command, args: javaArgs } = javaCommand(distribution, {
    mainClass: 'org.apache.kafka.tools.AclCommand',
    args: ['--bootstrap-server', bootstrap, ...args],
    profile: 'tool',
  });
  return new Promise((resolve, reject) => {
    execFile(command, javaArgs, { timeout: 120_000, maxBuffer: 16 << 20, killSignal: 'SIGKILL' }, (error, stdout, stderr) => {
      if (error) reject(new Error(`kafka-acls ${args.join(' ')} failed: ${error.message}\n${stderr.slice(-3000)}\n${stdout.slice(-3000)}`, { cause: error }));
      else resolve(stdout);
    });
  });
}

/** Every topic ACL of the cluster, as `kafka-acls --list` prints them. */
export async function listTopicAcls(bootstrap: string): Promise<ListedAcl[]> {
  const out = await kafkaAcls(bootstrap, ['--list']);
  const acls: ListedAcl[] = [];
  let resource: { name: string; patternType: 'LITERAL' | 'PREFIXED' } | undefined;
  for (const line of out.split('\n')) {
    const header = /ResourcePattern\(resourceType=(\w+), name=(.*), patternType=(\w+)\)/.exec(line);
    if (header) {
      resource = header[1] === 'TOPIC' ? { name: header[2]!, patternType: header[3] as 'LITERAL' | 'PREFIXED' } : undefined;
      continue;
    }
    const entry = /\(principal=(.*), host=(.*), operation=(\w+), permissionType=(ALLOW|DENY)\)/.exec(line);
    if (entry && resource) {
      acls.push({ ...resource, principal: entry[1]!, host: entry[2]!, operation: entry[3]!, permission: entry[4] as 'ALLOW' | 'DENY' });
    }
  }
  return acls;
}

/** `ALLOW User:a READ LITERAL orders`, to compare ACL lists as sets of lines. */
export function aclLine(acl: ListedAcl): string {
  return `${acl.permission} ${acl.principal} ${acl.operation} ${acl.patternType} ${acl.name}`;
}
