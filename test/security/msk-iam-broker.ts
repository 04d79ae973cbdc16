/**
 * A Kafka broker that checks AWS MSK IAM tokens the way MSK does, without AWS: its `IAM` listener
 * (SASL_PLAINTEXT, OAUTHBEARER) validates tokens with `java/MskIamTokenValidator.java`, which
 * recomputes the SigV4 signature of the presigned `kafka-cluster:Connect` URL with the one access
 * key it is given and refuses anything else, or an expired URL. The handler is compiled against
 * the Kafka jars the launcher uses, once per test file, into a temp folder that goes on the
 * broker's classpath (class files never land in the repository). The launcher's PLAINTEXT
 * listener stays, for the tests' own kits.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer as createTcpServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { after } from 'node:test';
import { defaultKafkaVersion, ensureKafkaDistribution, type BrokerAddress } from '../../src/local';
import { ownClusters, type OwnClusters } from '../support/own-clusters';

/** `test/security/java`, from `dist/test/security`. */
const JAVA_SOURCES = resolve(__dirname, '..', '..', '..', 'test', 'security', 'java');

/** The one access key the broker accepts; made up for the tests. */
export const ACCESS_KEY_ID = 'AKIAMIRRORFLOWTEST01';
export const SECRET_ACCESS_KEY = 'mskRight/Secret+Key7Tq2Xb9Lw4Zc8Vn3Hs6Jd1Pf5';
export const REGION = 'eu-west-1';

export interface MskIamCluster {
  readonly clusters: OwnClusters<'msk'>;
  /** `127.0.0.1:port` of the IAM listener. */
  iamBootstrap(): string;
}

async function freePort(): Promise<number> {
  const server = createTcpServer();
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((done) => server.close(() => done()));
  return port;
}

function javac(args: readonly string[]): Promise<void> {
  const command = process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'javac') : 'javac';
  return new Promise((done, fail) =>
    execFile(command, args, { timeout: 120_000 }, (error, _stdout, stderr) =>
      error ? fail(new Error(`javac failed: ${error.message}\n${stderr.slice(-3000)}`, { cause: error })) : done(),
    ),
  );
}

/** Call at the top of a test file: compiles the validator, then starts the broker before the file's first test. */
export function mskIamCluster(): MskIamCluster {
  const classes = mkdtempSync(join(tmpdir(), 'mirrorflow-msk-iam-validator-'));
  let port = 0;
  after(() => rmSync(classes, { recursive: true, force: true }));
  const listeners = (a: BrokerAddress, controller: boolean): string =>
    [`PLAINTEXT://${a.host}:${a.brokerPort}`, ...(controller ? [`CONTROLLER://${a.host}:${a.controllerPort}`] : []), `IAM://${a.host}:${port}`].join(',');
  const clusters = ownClusters(['msk'] as const, {
    // In the hook that starts the broker: it loads the class as it starts.
    prepare: async () => {
      const distribution = await ensureKafkaDistribution(defaultKafkaVersion());
      await javac(['-nowarn', '-d', classes, '-cp', distribution.classpath, join(JAVA_SOURCES, 'MskIamTokenValidator.java')]);
      port = await freePort();
    },
    extraClasspath: [classes],
    brokerProperties: {
      listeners: (a) => listeners(a, true),
      'advertised.listeners': (a) => listeners(a, false),
      'listener.security.protocol.map': 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT,IAM:SASL_PLAINTEXT',
      'listener.name.iam.sasl.enabled.mechanisms': 'OAUTHBEARER',
      'listener.name.iam.oauthbearer.sasl.jaas.config': `org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule required unsecuredLoginStringClaim_sub="broker" accessKeyId="${ACCESS_KEY_ID}" secretAccessKey="${SECRET_ACCESS_KEY}" region="${REGION}";`,
      'listener.name.iam.oauthbearer.sasl.server.callback.handler.class': 'MskIamTokenValidator',
    },
  });
  return { clusters, iamBootstrap: () => `127.0.0.1:${port}` };
}
