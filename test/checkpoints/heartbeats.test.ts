/**
 * Heartbeats (issue #3): every flow writes `(source, target, now)` to the
 * target's `heartbeats` topic, byte-identical to MM2's, and heartbeats topics travel along the
 * flows like MM2's (`a.heartbeats`, then `b.a.heartbeats` one hop further), so the hops between
 * clusters can be counted from topic names.
 *
 * The second test needs three clusters; it names the two test clusters three times over (`c` is
 * the primary cluster again under another alias), which is what a ring of flows looks like to
 * each flow. Aliases are unique per run, so the topics they name are too.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, test } from 'node:test';
import { uniqueName, type TestClusters } from '../support/clusters';
import { startPipeline, writePipeline } from '../support/pipeline-harness';
import { useKits } from '../support/use-kits';
import { GroupKit } from './checkpoint-kit';
import { encodeHeartbeatKey, encodeHeartbeatValue } from '../../src/formats';
import { DefaultReplicationPolicy } from '../../src/policy';
import { KafkaKit } from '../support/kafka-kit';

let clusters: TestClusters;
let primary: GroupKit;
let backup: GroupKit;
let backupRecords: KafkaKit;
let primaryRecords: KafkaKit;

useKits(
  (running) => {
    clusters = running;
    return {
      primary: new GroupKit(running.primary),
      backup: new GroupKit(running.backup),
      backupRecords: new KafkaKit(running.backup),
      primaryRecords: new KafkaKit(running.primary),
    };
  },
  (kits) => ({ primary, backup, backupRecords, primaryRecords } = kits),
);

/** A unique cluster alias (letters and digits only, so it never looks like a separator). */
const alias = (prefix: string): string => `${prefix}${randomBytes(4).toString('hex')}`;

describe('heartbeats', () => {
  test("a flow writes MM2 heartbeat records (source, target, now) to partition 0 of the target's compacted heartbeats topic", async () => {
    const source = alias('hbsrc');
    const p = uniqueName('hb-emit');
    const { file } = await writePipeline({
      clusters: { [source]: clusters.primary },
      flows: [{ source, target: 'backup', topics: [`${p}-.*`], heartbeats: { interval_ms: 200 } }],
    });
    const started = Date.now();
    const run = await startPipeline(file);
    const mine = await run.until(
      async () => {
        const beats = (await backup.heartbeats('heartbeats')).filter((h) => h.sourceClusterAlias === source);
        return beats.length >= 3 ? beats : undefined;
      },
      { what: `three heartbeats from ${source} on backup`, intervalMs: 300 },
    );
    await run.stop();
    assert.equal(await backup.partitions('heartbeats'), 1);
    assert.equal(await backup.topicConfig('heartbeats', 'cleanup.policy'), 'compact');
    for (const hb of mine) {
      assert.equal(hb.targetClusterAlias, 'backup');
      assert.equal(hb.partition, 0);
      assert.equal(hb.recordTimestamp, hb.timestamp, 'the record timestamp is the heartbeat time');
      assert.ok(hb.timestamp >= started - 1000 && hb.timestamp <= Date.now());
    }
    // Byte for byte what MM2's Heartbeat writes.
    const raw = (await backupRecords.readAll('heartbeats'))
      .get(0)!
      .filter((r) => r.key?.equals(encodeHeartbeatKey({ sourceClusterAlias: source, targetClusterAlias: 'backup' })));
    assert.ok(raw.length >= 3);
    for (const r of raw) {
      assert.deepEqual(r.value, encodeHeartbeatValue({ timestamp: r.timestamp }));
      assert.deepEqual(r.headers, []);
    }
    assert.ok(run.statuses()[0]!.heartbeats.written >= 3);
  });

  test("a flow that is not enabled still writes heartbeats, and replicates nothing (MM2's heartbeat-only herder)", async () => {
    const source = alias('hboff');
    const p = uniqueName('hb-off');
    await primaryRecords.createTopic(`${p}-data`, 1);
    await primaryRecords.produce(`${p}-data`, [{ partition: 0, key: null, value: Buffer.from('x'), headers: [], timestamp: Date.now() }]);
    const { file } = await writePipeline({
      clusters: { [source]: clusters.primary },
      flows: [{ source, target: 'backup', enabled: false, topics: [`${p}-.*`], heartbeats: { interval_ms: 200 } }],
    });
    const run = await startPipeline(file);
    await run.until(async () => ((await backup.heartbeats('heartbeats')).filter((h) => h.sourceClusterAlias === source).length >= 2 ? true : undefined), {
      what: `heartbeats from the disabled flow ${source} on backup`,
      intervalMs: 300,
    });
    await run.stop();
    assert.equal((await backupRecords.topics()).has(`${source}.${p}-data`), false, 'a disabled flow copies no topic');
  });

  test('heartbeats topics are replicated along the flows: a.heartbeats one hop away, b.a.heartbeats two', async () => {
    const [a, b, c] = [alias('hba'), alias('hbb'), alias('hbc')];
    const p = uniqueName('hb-hops');
    // a and c are the primary cluster, b the backup: a→b, b→c; c's heartbeats are a's. Each flow
    // names the heartbeats topics it copies: `replicate_heartbeats` would copy every heartbeats
    // topic of the shared clusters, and the next run would copy the copies (that rule itself is
    // MM2's heartbeats.replication.enabled, covered by the policy's unit tests).
    const hop = { replicate_heartbeats: false, heartbeats: { interval_ms: 200 } };
    const { file } = await writePipeline({
      clusters: { [a]: clusters.primary, [b]: clusters.backup, [c]: clusters.primary },
      flows: [
        { ...hop, source: a, target: b, topics: ['heartbeats', `${p}-.*`] },
        { ...hop, source: b, target: c, topics: ['heartbeats', `${a}\\.heartbeats`, `${p}-.*`] },
      ],
    });
    const run = await startPipeline(file);
    const oneHop = `${a}.heartbeats`;
    const twoHops = `${b}.${a}.heartbeats`;
    // b→c writes (b, c) heartbeats into the primary cluster's `heartbeats`; a→b carries them to the backup as a.heartbeats; b→c carries those on.
    await run.until(async () => (await backup.heartbeats(oneHop)).some((h) => h.sourceClusterAlias === b && h.targetClusterAlias === c), {
      what: `${oneHop} on the backup cluster`,
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    await run.until(async () => (await primary.heartbeats(twoHops)).some((h) => h.sourceClusterAlias === b && h.targetClusterAlias === c), {
      what: `${twoHops} on the primary cluster`,
      timeoutMs: 60_000,
      intervalMs: 500,
    });
    await run.stop();

    // What MM2's MirrorClient concludes from those names on cluster c (countHopsForTopic).
    const policy = new DefaultReplicationPolicy();
    const hops = (topic: string, upstream: string): number => {
      let t: string | undefined = topic;
      for (let n = 1; t !== undefined; n++) {
        const from = policy.topicSource(t);
        if (from === undefined) return -1;
        if (from === upstream) return n;
        t = policy.upstreamTopic(t);
      }
      return -1;
    };
    assert.equal(hops(`${b}.heartbeats`, b), 1);
    assert.equal(hops(twoHops, a), 2);
    assert.ok(await primary.topicExists(`${b}.heartbeats`), `${b}.heartbeats on the primary cluster`);
  });
});
