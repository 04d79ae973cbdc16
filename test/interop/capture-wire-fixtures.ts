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
import { produceRequestV3 } from '../../src/kafka/wire/produce-request';
import { captureFixtures, roundTrip, storeHexFixture } from './fixture-capture';

const FETCH = 1;
const PRODUCE = 0;

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

if (require.main === module) {
  captureFixtures('WireFixtureProducer.java', async ({ bootstrap, runJava }) => {
    process.stderr.write(await runJava('WireFixtureProducer'));

    for (const codec of ['none', 'gzip', 'snappy', 'lz4', 'zstd'])
      storeHexFixture(`java-producer-fetch-${codec}.hex`, await roundTrip(bootstrap, FETCH, 11, fetchV11(`wire-${codec}`, 0)));
    // read_committed, as a consumer that reached the aborted transaction (offset 3) asks: the
    // partition header lists it. (Asked from offset 0, this broker answers with the first batch only.)
    storeHexFixture('java-producer-fetch-txn.hex', await roundTrip(bootstrap, FETCH, 11, fetchV11('wire-txn', 1, 3n)));

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
    storeHexFixture('broker-produce-v7.hex', await roundTrip(bootstrap, PRODUCE, 7, (await request.encode()).buffer));
  });
}
