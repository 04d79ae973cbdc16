/**
 * Captures the share-group fixtures of src/kafka/wire/fixtures/ (KIP-932) from Kafka's Java
 * client and a real broker:
 *
 *   npm run build && node dist/test/interop/capture-share-group-fixtures.js [--kafka-version V]
 *
 * Starts one local cluster (src/local, which finalizes share.version=1) and runs
 * `java/ShareGroupFixture.java`: `setup` makes the topic `wire-share` and the share group
 * `wire-share-busy` (start offsets 2 and 1); `requests` prints the request bodies that the request
 * classes of Kafka's Java AdminClient encode, stored as `java-<name>-request.hex`. Each is then sent
 * to the broker with request header v2 (the APIs are flexible), and its response body after the
 * correlation id (the response header's tagged fields first) stored as `broker-<name>.hex`:
 *
 * - `alter-share-group-offsets-v0`: `wire-share-idle`, which does not exist yet, gets start
 *   offsets 3 and 4 on wire-share (the group is created) and one on a topic that does not exist;
 * - then a KafkaShareConsumer joins `wire-share-busy` and stays (`member`);
 * - `describe-share-group-offsets-v1` (and `-v0`, the same request, answered without lags): the
 *   start offsets of `wire-share-idle`, `wire-share-busy` (held at 2 and 1 by its member, which
 *   acknowledges nothing) and `wire-share-missing` (no such group; two partitions asked for);
 * - `share-group-describe-v1`: the three groups' states (Empty, Stable, unknown);
 * - `alter-share-group-offsets-busy-v0`: an alter of `wire-share-busy`, which has a member.
 *
 * The wire spec checks our encoders against the requests and our decoders against the answers.
 * Run it again after changing the Java program.
 */
import { once } from 'node:events';
import {
  ALTER_SHARE_GROUP_OFFSETS_API_KEY,
  ALTER_SHARE_GROUP_OFFSETS_V0,
  DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY,
  DESCRIBE_SHARE_GROUP_OFFSETS_V0,
  DESCRIBE_SHARE_GROUP_OFFSETS_V1,
  SHARE_GROUP_DESCRIBE_API_KEY,
  SHARE_GROUP_DESCRIBE_V1,
} from '../../src/kafka/wire/share-group-offsets';
import { captureFixtures, roundTrip, storeHexFixture } from './fixture-capture';
import { waitFor } from '../support/wait-for';

if (require.main === module) {
  captureFixtures('ShareGroupFixture.java', async ({ bootstrap, runJava, startJava }) => {
    process.stderr.write(await runJava('ShareGroupFixture', 'setup'));
    const requests = new Map<string, Buffer>();
    for (const line of (await runJava('ShareGroupFixture', 'requests')).split('\n')) {
      const match = /^([a-z-]+)=([0-9a-f]+)$/.exec(line.trim());
      if (match !== null) requests.set(match[1]!, Buffer.from(match[2]!, 'hex'));
    }
    const request = (name: string): Buffer => {
      const body = requests.get(name);
      if (body === undefined) throw new Error(`ShareGroupFixture printed no ${name} request`);
      return body;
    };
    const send = (apiKey: number, version: number, body: Buffer) => roundTrip(bootstrap, apiKey, version, body, { flexible: true });

    const alterIdle = await send(ALTER_SHARE_GROUP_OFFSETS_API_KEY, ALTER_SHARE_GROUP_OFFSETS_V0, request('alter-idle'));

    const member = startJava('ShareGroupFixture', 'member');
    let out = '';
    let err = '';
    member.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    member.stderr.setEncoding('utf8').on('data', (c: string) => (err += c));
    const exited = once(member, 'close');
    try {
      await waitFor(() => out.includes('{"joined":true}'), {
        what: `the share consumer to join wire-share-busy (it said: ${err.slice(-2000)})`,
        timeoutMs: 60_000,
      });
      const describeOffsets = await send(DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY, DESCRIBE_SHARE_GROUP_OFFSETS_V1, request('describe-offsets'));
      // v0's request is v1's; its answer has no lag.
      const describeOffsetsV0 = await send(DESCRIBE_SHARE_GROUP_OFFSETS_API_KEY, DESCRIBE_SHARE_GROUP_OFFSETS_V0, request('describe-offsets'));
      const describeGroups = await send(SHARE_GROUP_DESCRIBE_API_KEY, SHARE_GROUP_DESCRIBE_V1, request('describe-groups'));
      const alterBusy = await send(ALTER_SHARE_GROUP_OFFSETS_API_KEY, ALTER_SHARE_GROUP_OFFSETS_V0, request('alter-busy'));

      storeHexFixture('java-alter-share-group-offsets-v0-request.hex', request('alter-idle'));
      storeHexFixture('broker-alter-share-group-offsets-v0.hex', alterIdle);
      storeHexFixture('java-alter-share-group-offsets-busy-v0-request.hex', request('alter-busy'));
      storeHexFixture('broker-alter-share-group-offsets-busy-v0.hex', alterBusy);
      storeHexFixture('java-describe-share-group-offsets-v1-request.hex', request('describe-offsets'));
      storeHexFixture('broker-describe-share-group-offsets-v1.hex', describeOffsets);
      storeHexFixture('broker-describe-share-group-offsets-v0.hex', describeOffsetsV0);
      storeHexFixture('java-share-group-describe-v1-request.hex', request('describe-groups'));
      storeHexFixture('broker-share-group-describe-v1.hex', describeGroups);
    } finally {
      member.stdin.end();
      await exited;
    }
  });
}
