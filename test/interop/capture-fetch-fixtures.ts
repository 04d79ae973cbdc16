/**
 * Captures the Fetch-by-topic-id fixtures of src/kafka/wire/fixtures/ (Fetch v13–v16) from Kafka's
 * Java client and a real broker:
 *
 *   npm run build && node dist/test/interop/capture-fetch-fixtures.js [--kafka-version V]
 *
 * Starts one local cluster (src/local) and runs `java/FetchFixture.java`: `setup` writes the
 * records of wire-fetch-a (a-0: an lz4 batch; a-1: an aborted and a committed transaction) and
 * wire-fetch-b (b-0: two batches, the first deleted) with Kafka's Java producers and prints the
 * topics' ids, stored as `java-fetch-topic-ids.txt`; `requests` and `incremental` print the
 * request bodies that Kafka's Java client serializes, stored as `java-fetch-<name>-request.hex`.
 * Each is sent to the broker with request header v2, on a connection of its own, and its response
 * body after the correlation id (the response header's tagged fields first) stored as
 * `broker-fetch-<name>.hex`:
 *
 * - `full-v13` … `full-v16`: a new fetch session each, read_committed, every partition (v14 and
 *   v15 either side of the end of replica_id in the body);
 * - `sessionless-v13`, `sessionless-v16`: no session, read_uncommitted, a-1 and b-0 from below
 *   its log start;
 * - `unknown-v16`: no session, a topic id no topic has and a-0;
 * - `incremental-v13`, `incremental-v16`: epoch 1 of the session the full request of that version
 *   created (asked on another connection than the one that created it), a-1 moved on and b-0
 *   forgotten.
 *
 * The spec (src/kafka/wire/fetch-by-topic-id.spec.ts) checks our encoder against the requests and
 * our decoder against the answers. Topic ids and session ids differ per capture; run it again
 * after changing the Java program.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CompactReader } from '../../src/kafka/wire/compact-codec';
import { FIXTURES, captureFixtures, roundTrip, storeHexFixture } from './fixture-capture';

const FETCH = 1;

/** `name=hex` lines of a FetchFixture mode. */
function printed(out: string): Map<string, Buffer> {
  const bodies = new Map<string, Buffer>();
  for (const line of out.split('\n')) {
    const match = /^([a-z0-9-]+)=([0-9a-f]+)$/.exec(line.trim());
    if (match !== null) bodies.set(match[1]!, Buffer.from(match[2]!, 'hex'));
  }
  return bodies;
}

/** The top-level error and session id of a Fetch v13+ answer. */
function sessionOf(answer: Buffer): { readonly errorCode: number; readonly sessionId: number } {
  const r = new CompactReader(answer, 'Fetch response');
  r.skipTaggedFields();
  r.int32(); // throttle_time_ms
  return { errorCode: r.int16(), sessionId: r.int32() };
}

if (require.main === module) {
  captureFixtures('FetchFixture.java', async ({ bootstrap, runJava }) => {
    const setup = await runJava('FetchFixture', 'setup');
    const ids = setup.split('\n').filter((line) => /^wire-fetch-[ab]=[A-Za-z0-9_-]{22}$/.test(line.trim()));
    if (ids.length !== 2) throw new Error(`FetchFixture setup printed no topic ids:\n${setup.slice(-4000)}`);

    const requests = printed(await runJava('FetchFixture', 'requests'));
    const request = (name: string): Buffer => {
      const body = requests.get(name);
      if (body === undefined) throw new Error(`FetchFixture printed no ${name} request`);
      return body;
    };
    const answers = new Map<string, Buffer>();
    const send = async (name: string, version: number): Promise<void> => {
      answers.set(name, await roundTrip(bootstrap, FETCH, version, request(name), { flexible: true }));
    };

    for (const version of [13, 14, 15, 16]) await send(`full-v${version}`, version);
    const sessions = [sessionOf(answers.get('full-v13')!), sessionOf(answers.get('full-v16')!)];
    for (const { errorCode, sessionId } of sessions)
      if (errorCode !== 0 || sessionId === 0) throw new Error(`A full Fetch created no session (error ${errorCode}, session ${sessionId})`);
    await send('sessionless-v13', 13);
    await send('sessionless-v16', 16);
    await send('unknown-v16', 16);

    for (const [name, body] of printed(await runJava('FetchFixture', 'incremental', String(sessions[0]!.sessionId), String(sessions[1]!.sessionId))))
      requests.set(name, body);
    await send('incremental-v13', 13);
    await send('incremental-v16', 16);

    writeFileSync(join(FIXTURES, 'java-fetch-topic-ids.txt'), `${ids.map((line) => line.trim()).join('\n')}\n`);
    process.stdout.write(`  src/kafka/wire/fixtures/java-fetch-topic-ids.txt\n`);
    for (const [name, answer] of answers) {
      storeHexFixture(`java-fetch-${name}-request.hex`, request(name));
      storeHexFixture(`broker-fetch-${name}.hex`, answer);
    }
  });
}
