/**
 * Captures the IncrementalAlterConfigs fixtures of src/kafka/wire/fixtures/ from Kafka's Java
 * client and a real broker:
 *
 *   npm run build && node dist/test/interop/capture-alter-configs-fixtures.js [--kafka-version V]
 *
 * Starts one local cluster (src/local); `java/AlterConfigsFixture.java` creates the topics and
 * encodes an IncrementalAlterConfigs v0 request with the request class Kafka's AdminClient uses,
 * stored as `java-incremental-alter-configs-v0-request.hex`; that request is then sent to the
 * broker and its response body (after the correlation id) stored as
 * `broker-incremental-alter-configs-v0.hex`: one topic changed, one refused (a value that is not a
 * number), one that does not exist. The wire spec checks our encoder against the first and our
 * decoder against the second. Run it again after changing the Java program.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultKafkaVersion, javaExecutable, loggingJvmOptions, startLocalClusters } from '../../src/local';
import { INCREMENTAL_ALTER_CONFIGS_API_KEY, INCREMENTAL_ALTER_CONFIGS_V0 } from '../../src/kafka/wire/incremental-alter-configs';

const root = resolve(__dirname, '..', '..', '..');
const FIXTURES = join(root, 'src', 'kafka', 'wire', 'fixtures');
const JAVA_SOURCE = join(root, 'test', 'interop', 'java', 'AlterConfigsFixture.java');

function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolveRun(out) : reject(new Error(`${command} exited ${code}:\n${(out + err).slice(-4000)}`))));
  });
}

/** Sends one request (header v1) and resolves with the response body after the correlation id. */
function roundTrip(bootstrap: string, apiKey: number, apiVersion: number, body: Buffer): Promise<Buffer> {
  const at = bootstrap.lastIndexOf(':');
  const clientId = Buffer.from('wire-fixtures');
  const header = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length);
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(7, 4);
  header.writeInt16BE(clientId.length, 8);
  clientId.copy(header, 10);
  const size = Buffer.alloc(4);
  size.writeInt32BE(header.length + body.length);
  return new Promise((resolveTrip, reject) => {
    const socket = connect({ host: bootstrap.slice(0, at), port: Number(bootstrap.slice(at + 1)) }, () => socket.write(Buffer.concat([size, header, body])));
    let received = Buffer.alloc(0);
    socket.on('data', (chunk) => {
      received = Buffer.concat([received, chunk]);
      if (received.length >= 4 && received.length >= 4 + received.readInt32BE(0)) {
        socket.end();
        resolveTrip(received.subarray(8, 4 + received.readInt32BE(0)));
      }
    });
    socket.on('error', reject);
  });
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'kafka-version': { type: 'string' } } });
  const local = await startLocalClusters({ aliases: ['fixtures'], version: values['kafka-version'] ?? defaultKafkaVersion() });
  const classes = mkdtempSync(join(tmpdir(), 'mirrorflow-alter-configs-'));
  try {
    const bootstrap = local.bootstrapServers()['fixtures']!;
    const javac = process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'javac') : 'javac';
    await run(javac, ['-nowarn', '-d', classes, '-cp', local.distribution.classpath, JAVA_SOURCE]);
    const java = [
      ...loggingJvmOptions(local.distribution, undefined),
      '-cp',
      `${classes}${delimiter}${local.distribution.classpath}`,
      'AlterConfigsFixture',
      bootstrap,
    ];
    const hex = (await run(javaExecutable(), java)).trim().split('\n').pop()!.trim();
    const request = Buffer.from(hex, 'hex');
    const response = await roundTrip(bootstrap, INCREMENTAL_ALTER_CONFIGS_API_KEY, INCREMENTAL_ALTER_CONFIGS_V0, request);
    const store = (name: string, bytes: Buffer): void => {
      writeFileSync(
        join(FIXTURES, name),
        `${bytes
          .toString('hex')
          .replace(/(.{128})/g, '$1\n')
          .trimEnd()}\n`,
      );
      process.stdout.write(`  ${name} (${bytes.length} bytes)\n`);
    };
    process.stdout.write(`Wrote to ${FIXTURES}:\n`);
    store('java-incremental-alter-configs-v0-request.hex', request);
    store('broker-incremental-alter-configs-v0.hex', response);
  } finally {
    rmSync(classes, { recursive: true, force: true });
    await local.stop();
  }
}

if (require.main === module) {
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
