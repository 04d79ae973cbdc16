/**
 * Captures the wire fixtures of src/kafka/wire/fixtures/ from a real broker:
 *
 *   npm run build && node dist/test/interop/capture-wire-fixtures.js [--kafka-version V]
 *
 * Starts one local cluster (src/local), has Kafka's Java producer write the records of
 * `java/WireFixtureProducer.java` (compiled against the Kafka jars into a temp folder), then asks
 * the broker with raw requests, as a consumer and a producer would, and stores each response body
 * (the bytes after the correlation id, which is what kafkajs's response decoders take) as hex:
 *
 * - `java-producer-fetch-<codec>.hex`: Fetch v11, read_uncommitted, of wire-<codec> from offset 0
 *   (none, gzip, snappy, lz4, zstd): one batch of five records;
 * - `java-producer-fetch-txn.hex`: Fetch v11, read_committed, of wire-txn from offset 3: the
 *   aborted transaction (producer id, first offset 3) in the partition header, then the aborted
 *   batch, its abort marker, a committed batch and its commit marker;
 * - `broker-produce-v7.hex`: the Produce v7 response to one record for wire-produce
 *   partition 0 (written) and partition 1 (no such partition).
 *
 * The fixtures are rewritten whole; run it again after changing the Java program. The broker's
 * ports, ids and log-append times differ per run, and the specs assert only what does not.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { defaultKafkaVersion, javaExecutable, loggingJvmOptions, startLocalClusters } from '../../src/local';
import { produceRequestV3 } from '../../src/kafka/wire/produce-request';

const root = resolve(__dirname, '..', '..', '..');
const FIXTURES = join(root, 'src', 'kafka', 'wire', 'fixtures');
const JAVA_SOURCE = join(root, 'test', 'interop', 'java', 'WireFixtureProducer.java');

const FETCH = 1;
const PRODUCE = 0;

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

/** Sends one framed request and resolves with the response body after the correlation id. */
function roundTrip(bootstrap: string, apiKey: number, apiVersion: number, body: Buffer): Promise<Buffer> {
  const [host, port] = [bootstrap.slice(0, bootstrap.lastIndexOf(':')), Number(bootstrap.slice(bootstrap.lastIndexOf(':') + 1))];
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
    const socket = connect({ host, port }, () => socket.write(Buffer.concat([size, header, body])));
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

/** Fetch v11 of one partition. */
function fetchV11(topic: string, isolationLevel: 0 | 1, fetchOffset = 0n): Buffer {
  const name = Buffer.from(topic);
  const b = Buffer.alloc(4 + 4 + 4 + 4 + 1 + 4 + 4 + 4 + 2 + name.length + 4 + (4 + 4 + 8 + 8 + 4) + 4 + 2);
  let o = b.writeInt32BE(-1, 0); // replica_id
  o = b.writeInt32BE(500, o); // max_wait_ms
  o = b.writeInt32BE(1, o); // min_bytes
  o = b.writeInt32BE(1 << 20, o); // max_bytes
  o = b.writeInt8(isolationLevel, o);
  o = b.writeInt32BE(0, o); // session_id
  o = b.writeInt32BE(-1, o); // session_epoch: no fetch session
  o = b.writeInt32BE(1, o); // topics
  o = b.writeInt16BE(name.length, o);
  o += name.copy(b, o);
  o = b.writeInt32BE(1, o); // partitions
  o = b.writeInt32BE(0, o); // partition
  o = b.writeInt32BE(-1, o); // current_leader_epoch
  o = b.writeBigInt64BE(fetchOffset, o); // fetch_offset
  o = b.writeBigInt64BE(-1n, o); // log_start_offset
  o = b.writeInt32BE(1 << 20, o); // partition_max_bytes
  o = b.writeInt32BE(0, o); // forgotten_topics_data
  b.writeInt16BE(0, o); // rack_id ""
  return b;
}

async function main(): Promise<void> {
  const { values } = parseArgs({ options: { 'kafka-version': { type: 'string' } } });
  const local = await startLocalClusters({ aliases: ['fixtures'], version: values['kafka-version'] ?? defaultKafkaVersion() });
  const classes = mkdtempSync(join(tmpdir(), 'mirrorflow-wire-fixtures-'));
  try {
    const bootstrap = local.bootstrapServers()['fixtures']!;
    const javac = process.env['JAVA_HOME'] ? join(process.env['JAVA_HOME'], 'bin', 'javac') : 'javac';
    await run(javac, ['-nowarn', '-d', classes, '-cp', local.distribution.classpath, JAVA_SOURCE]);
    const java = [
      ...loggingJvmOptions(local.distribution, undefined),
      '-cp',
      `${classes}${delimiter}${local.distribution.classpath}`,
      'WireFixtureProducer',
      bootstrap,
    ];
    process.stderr.write(await run(javaExecutable(), java));

    const written: string[] = [];
    const store = (name: string, bytes: Buffer): void => {
      writeFileSync(
        join(FIXTURES, name),
        `${bytes
          .toString('hex')
          .replace(/(.{128})/g, '$1\n')
          .trimEnd()}\n`,
      );
      written.push(`${name} (${bytes.length} bytes)`);
    };
    for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'])
      store(`java-producer-fetch-${codec}.hex`, await roundTrip(bootstrap, FETCH, 11, fetchV11(`wire-${codec}`, 0)));
    // read_committed, as a consumer that reached the aborted transaction (offset 3) asks: the
    // partition header lists it. (Asked from offset 0, this broker answers with the first batch only.)
    store('java-producer-fetch-txn.hex', await roundTrip(bootstrap, FETCH, 11, fetchV11('wire-txn', 1, 3n)));

    // The request body is ours (the produce response is what is captured); v7 shares v3's body.
    const message = { partition: 0, key: Buffer.from('k'), value: Buffer.from('v'), timestamp: 1_700_000_000_000, headers: [] };
    const request = produceRequestV3({
      acks: -1,
      timeout: 30_000,
      topicData: [
        {
          topic: 'wire-produce',
          partitions: [
            { partition: 0, messages: [message] },
            { partition: 1, messages: [{ ...message, partition: 1 }] },
          ],
        },
      ],
    });
    store('broker-produce-v7.hex', await roundTrip(bootstrap, PRODUCE, 7, (await request.encode()).buffer));
    process.stdout.write(`Wrote to ${FIXTURES}:\n${written.map((w) => `  ${w}\n`).join('')}`);
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
