import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '../../core/ports/logger';
import { HttpServer, jsonResponse } from '../../telemetry/http-server';
import { announceLocalEndpoint } from '../../telemetry/local-endpoints';
import type { FlowSnapshot } from '../../telemetry';
import { statusDocument } from '../../telemetry/status-document';
import { renderStatus, singleStatusUrl, statusAction, statusUrl } from './status.action';

const flow: FlowSnapshot = {
  source: 'primary',
  target: 'backup',
  replicating: true,
  state: 'running',
  topics: 1,
  partitionsAssigned: 1,
  elected: true,
  recordsReplicated: 70,
  recordsDropped: 0,
  bytesReplicated: 700,
  recordBatchesForwarded: 0,
  recordsReencoded: 5,
  topicsCreated: 1,
  writes: 2,
  lastReplicationLatencyMs: 9,
  lastRecordAgeMs: 15,
  transformCounters: [],
  failure: undefined,
  partitions: [{ topic: 'orders', partition: 0, nextOffset: 70, highWatermark: 75, records: 70, bytes: 700, lagSince: 0 }],
  buffer: undefined,
  sourceResets: 0,
  recordsExpired: 0,
  recordsDeadLettered: 0,
  outages: [],
  retries: [],
  checkpoints: {
    state: 'running',
    groups: 2,
    checkpointsWritten: 4,
    lastPassAt: 1_000_000,
    lastCheckpointLatencyMs: 3,
    errors: 0,
    translationLag: [],
    groupSync: { enabled: true, groupsSynced: 0, offsetsCommitted: 0, skippedActive: 1, activeGroups: ['billing'], errors: 0 },
  },
  heartbeats: { state: 'running', written: 10, lastAt: 1_004_000, errors: 0 },
  acls: { state: 'disabled', created: 0, skipped: {}, errors: 0, lastPassAt: undefined },
};

test('the table shows each flow with its lag, then its partitions and the groups skipped as active', () => {
  const text = renderStatus(statusDocument('p1', [flow], 1_005_000), 1_005_000);
  assert.match(text, /^Pipeline p1: ready$/m);
  assert.match(
    text,
    /^primary->backup\s+running\s+1\s+70\s+5\s+9 ms\s+running, 2 groups, last 1970-01-01T00:16:40.000Z \(5s ago\)\s+running, last .*\(1s ago\)$/m,
  );
  assert.match(text, /^\s+orders\s+0\s+70\s+75\s+5\s+70$/m);
  assert.match(text, /groups not synced because active on backup: billing/);
});

test('offsets: preserve: how many partitions are preserved, and each that fell back with its offset and reason', () => {
  const preserving: FlowSnapshot = {
    ...flow,
    preservation: {
      fallbacks: 1,
      partitions: [
        { topic: 'orders', partition: 1, preserved: false, reason: 'the source has no records at offsets 60 to 60', fromOffset: 61, at: 1_000_000 },
        { topic: 'orders', partition: 0, preserved: true, since: 0 },
      ],
    },
  };
  const document = statusDocument('p1', [preserving], 1_005_000);
  assert.deepEqual(document.flows[0]!.offsets, {
    preserved: 1,
    fallbacks: [{ topic: 'orders', partition: 1, fromOffset: 61, reason: 'the source has no records at offsets 60 to 60', at: '1970-01-01T00:16:40.000Z' }],
  });
  const text = renderStatus(document, 1_005_000);
  assert.match(text, /^ {2}offsets preserved on 1 partitions, 1 fell back to translation$/m);
  assert.match(text, /^ {2}offsets not preserved: orders-1 from source offset 61: the source has no records at offsets 60 to 60$/m);
  assert.equal(statusDocument('p1', [flow], 1_005_000).flows[0]!.offsets, null, 'offsets: translate says nothing');
});

test('status URLs: a bare address or base URL means its /status', () => {
  assert.equal(statusUrl('127.0.0.1:9464'), 'http://127.0.0.1:9464/status');
  assert.equal(statusUrl('http://h:1/'), 'http://h:1/status');
  assert.equal(statusUrl('http://h:1/status'), 'http://h:1/status');
});

test('without a URL, every process of this host that announced itself is shown, and --watch needs a choice among several', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-status-'));
  const saved = process.env['MIRRORFLOW_RUNTIME_DIR'];
  process.env['MIRRORFLOW_RUNTIME_DIR'] = dir;
  const servers = ['one', 'two'].map(
    (name) =>
      new HttpServer(
        [{ method: 'GET', path: '/status', handle: () => jsonResponse(200, statusDocument(name, [flow], 1_005_000, { worker: name, pid: 7 })) }],
        silentLogger,
      ),
  );
  try {
    // One file per pid: the second server's is written by hand under a pid that is alive (the parent's).
    const [a, b] = await Promise.all(servers.map((s) => s.listen({ host: '127.0.0.1', port: 0 })));
    announceLocalEndpoint({ pipeline: 'one', address: `127.0.0.1:${a!.port}` }, dir);
    writeFileSync(
      join(dir, `${process.ppid}.json`),
      JSON.stringify({ pid: process.ppid, pipeline: 'two', address: `127.0.0.1:${b!.port}`, since: new Date().toISOString() }),
    );
    let printed = '';
    const out = { write: (text: string) => ((printed += text), true) } as unknown as NodeJS.WritableStream;
    await statusAction({ url: undefined, json: false, timeoutMs: 5000 }, out);
    assert.match(printed, /Pipeline one at one \(pid 7\): ready/);
    assert.match(printed, /Pipeline two at two \(pid 7\): ready/);
    printed = '';
    await statusAction({ url: undefined, json: true, timeoutMs: 5000 }, out);
    const { processes } = JSON.parse(printed) as { processes: { pipeline: string; url: string; status: { pipeline: string } }[] };
    assert.deepEqual(processes.map((p) => [p.pipeline, p.status.pipeline]).sort(), [
      ['one', 'one'],
      ['two', 'two'],
    ]);
    assert.throws(() => singleStatusUrl(undefined), /2 mirrorflow processes run on this host; give the URL of one/);
    assert.equal(singleStatusUrl('127.0.0.1:1'), 'http://127.0.0.1:1/status');
  } finally {
    if (saved === undefined) delete process.env['MIRRORFLOW_RUNTIME_DIR'];
    else process.env['MIRRORFLOW_RUNTIME_DIR'] = saved;
    await Promise.all(servers.map((s) => s.close()));
  }
});

test("each consumer group's sync state, with how many partitions translate, since when and why; filtered-out groups as a count", () => {
  const withStates: FlowSnapshot = {
    ...flow,
    checkpoints: {
      ...flow.checkpoints,
      groupStates: [
        { group: 'app', state: 'synced', reason: 'its group on backup holds the translated offsets', since: 1_000_000, partitions: 4, translated: 3 },
        {
          group: 'late',
          state: 'not-translatable',
          reason: 'none of its 2 partitions on replicated topics has an offset sync',
          since: 1_003_000,
          partitions: 2,
          translated: 0,
        },
        { group: 'console-consumer-1', state: 'filtered-out', reason: "the flow's groups filter leaves it out", since: 1_000_000 },
      ],
      groupsFilteredOut: 1,
    },
  };
  const text = renderStatus(statusDocument('p1', [withStates], 1_005_000), 1_005_000);
  assert.match(text, /^ {2}GROUP\s+SYNC STATE\s+PARTITIONS\s+SINCE\s+WHY$/m);
  assert.match(text, /^ {2}app\s+synced\s+3\/4\s+5s ago\s+its group on backup holds the translated offsets$/m);
  assert.match(text, /^ {2}late\s+not-translatable\s+0\/2\s+2s ago\s+none of its 2 partitions/m);
  assert.match(text, /^ {2}1 consumer group\(s\) left out by the groups filter$/m);
  assert.doesNotMatch(text, /console-consumer-1/);
  assert.match(text, /^ {2}GROUP[^\n]*\n(?: {2}\S[^\n]*\n)+ {2}TOPIC\s+PARTITION\s+NEXT OFFSET/m, 'the partitions follow the groups, as indented');
  assert.doesNotMatch(text, / +$/m, 'no line ends in spaces');
});
