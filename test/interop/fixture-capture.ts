/**
 * What the fixture capture scripts share (capture-wire-fixtures.ts,
 * capture-alter-configs-fixtures.ts, capture-share-group-fixtures.ts): a local cluster, a Java program compiled against its Kafka
 * jars and run there, a raw request/response round trip, and writing the bytes as hex fixtures
 * into src/kafka/wire/fixtures/.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultKafkaVersion, javaExecutable, loggingJvmOptions, startLocalClusters } from '../../src/local';

const root = resolve(__dirname, '..', '..', '..');
export const FIXTURES = join(root, 'src', 'kafka', 'wire', 'fixtures');

/** Runs a command to its end; resolves with its stdout and stderr together, or fails with their end. */
function run(command: string, args: readonly string[]): Promise<string> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolveRun(out) : reject(new Error(`${command} exited ${code}:\n${out.slice(-4000)}`))));
  });
}

/**
 * Sends one request (header v1; v2, with its empty tagged fields, when `flexible`) and resolves
 * with the response body after the correlation id: for a flexible response, that starts with the
 * response header's tagged fields, as kafkajs's connection hands it to a decoder.
 */
export function roundTrip(bootstrap: string, apiKey: number, apiVersion: number, body: Buffer, options: { readonly flexible?: boolean } = {}): Promise<Buffer> {
  const at = bootstrap.lastIndexOf(':');
  const clientId = Buffer.from('wire-fixtures');
  const header = Buffer.alloc(2 + 2 + 4 + 2 + clientId.length + (options.flexible === true ? 1 : 0));
  header.writeInt16BE(apiKey, 0);
  header.writeInt16BE(apiVersion, 2);
  header.writeInt32BE(7, 4);
  header.writeInt16BE(clientId.length, 8);
  clientId.copy(header, 10);
  // Header v2 ends with its tagged fields: none (the buffer's last byte, already 0).
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

/** Writes `bytes` as `name` in FIXTURES, hex in lines of 64 bytes, and says so on stdout. */
export function storeHexFixture(name: string, bytes: Buffer): void {
  const hex = bytes
    .toString('hex')
    .replace(/(.{128})/g, '$1\n')
    .trimEnd();
  writeFileSync(join(FIXTURES, name), `${hex}\n`);
  process.stdout.write(`  ${join('src/kafka/wire/fixtures', name)} (${bytes.length} bytes)\n`);
}

export interface CaptureCluster {
  readonly bootstrap: string;
  /** Runs the compiled `mainClass` against the cluster (its first argument); resolves with its output. */
  runJava(mainClass: string, ...args: string[]): Promise<string>;
  /** Starts the compiled `mainClass` against the cluster (its first argument) without waiting; closing its stdin is how it is told to stop. */
  startJava(mainClass: string, ...args: string[]): ChildProcessWithoutNullStreams;
}

/**
 * Starts one local cluster (`--kafka-version V` or the default), compiles `javaSource` (a file of
 * test/interop/java/) against its jars, runs `capture`, and stops everything. The script's main.
 */
export function captureFixtures(javaSource: string, capture: (cluster: CaptureCluster) => Promise<void>): void {
  const main = async (): Promise<void> => {
    const { values } = parseArgs({ options: { 'kafka-version': { type: 'string' } } });
    const local = await startLocalClusters({ aliases: ['fixtures'], version: values['kafka-version'] ?? defaultKafkaVersion() });
    const classes = mkdtempSync(join(tmpdir(), 'mirrorflow-wire-fixtures-'));
    try {
      const bootstrap = local.bootstrapServers()['fixtures']!;
      const javac = process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'javac') : 'javac';
      await run(javac, ['-nowarn', '-d', classes, '-cp', local.distribution.classpath, join(root, 'test', 'interop', 'java', javaSource)]);
      const classpath = `${classes}${delimiter}${local.distribution.classpath}`;
      const runJava = (mainClass: string, ...args: string[]): Promise<string> =>
        run(javaExecutable(), [...loggingJvmOptions(local.distribution, undefined), '-cp', classpath, mainClass, bootstrap, ...args]);
      const startJava = (mainClass: string, ...args: string[]): ChildProcessWithoutNullStreams =>
        spawn(javaExecutable(), [...loggingJvmOptions(local.distribution, undefined), '-cp', classpath, mainClass, bootstrap, ...args], {
          stdio: ['pipe', 'pipe', 'pipe'],
        });
      process.stdout.write(`Writing fixtures:\n`);
      await capture({ bootstrap, runJava, startJava });
    } finally {
      rmSync(classes, { recursive: true, force: true });
      await local.stop();
    }
  };
  main().catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  });
}
