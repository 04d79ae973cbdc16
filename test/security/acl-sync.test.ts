/**
 * Topic ACL sync (MM2's `sync.topic.acls.enabled`) between two clusters running Kafka's
 * StandardAuthorizer, with ACLs written and read by Kafka's own `kafka-acls` tool: what is
 * copied (renamed to the remote topic, `ALLOW ALL` as `READ`, `DENY` as it is, prefixed ACLs on
 * the remote prefix), what is not (`ALLOW WRITE`, topics not replicated), that target ACLs are
 * never deleted, and that an ACL added on the source later reaches the target. A cluster without
 * an authorizer (the shared test clusters) turns the sync off for the flow, replication going on.
 * `mirrorflow diff` reports a source ACL the target lacks as drift, and none once the sync ran.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { uniqueName, waitFor } from '../support/clusters';
import { ownClusters } from '../support/own-clusters';
import { runCli, startPipeline, writePipeline } from '../support/pipeline-harness';
import { KafkaKit } from '../support/kafka-kit';
import { testClusters } from '../support/clusters';
import { aclLine, kafkaAcls, listTopicAcls } from './kafka-acls';

/** The launcher connects over PLAINTEXT as User:ANONYMOUS: it is the super user, as is mirrorflow here. */
const clusters = ownClusters(['primary', 'backup'] as const, {
  brokerProperties: {
    'authorizer.class.name': 'org.apache.kafka.metadata.authorizer.StandardAuthorizer',
    'super.users': 'User:ANONYMOUS',
  },
});

const INTERVAL_MS = 2_000;

/** Target ACLs naming `text`, as sorted lines. */
async function targetAclLines(text: string): Promise<string[]> {
  return (await listTopicAcls(clusters.bootstrap('backup')))
    .filter((acl) => acl.name.includes(text))
    .map(aclLine)
    .sort();
}

test('topic ACLs of replicated topics reach the remote topics as MM2 copies them; target ACLs are never deleted; a later ACL follows', async () => {
  const base = uniqueName('acls');
  const orders = `${base}.orders`;
  const skippedTopic = `${base}-skipped`;
  const primary = clusters.bootstrap('primary');
  const backup = clusters.bootstrap('backup');
  await clusters.kit('primary').createTopic(orders, 2);
  await clusters.kit('primary').createTopic(skippedTopic, 1);

  // Source ACLs, as an operator writes them.
  const topic = (name: string) => ['--topic', name];
  await kafkaAcls(primary, [
    '--add',
    '--allow-principal',
    'User:reader',
    '--deny-principal',
    'User:blocked',
    '--operation',
    'Read',
    ...topic(orders),
    ...topic(skippedTopic),
  ]);
  await kafkaAcls(primary, ['--add', '--allow-principal', 'User:writer', '--operation', 'Write', ...topic(orders)]);
  await kafkaAcls(primary, ['--add', '--allow-principal', 'User:admin', '--operation', 'All', ...topic(orders)]);
  await kafkaAcls(primary, [
    '--add',
    '--resource-pattern-type',
    'prefixed',
    '--allow-principal',
    'User:team',
    '--operation',
    'Read',
    '--operation',
    'Write',
    ...topic(`${base}.`),
  ]);
  await kafkaAcls(primary, ['--add', '--resource-pattern-type', 'prefixed', '--deny-principal', 'User:blocked', '--operation', 'All', ...topic(`${base}.`)]);
  // A prefix no replicated topic starts with.
  await kafkaAcls(primary, ['--add', '--resource-pattern-type', 'prefixed', '--allow-principal', 'User:team', '--operation', 'Read', ...topic(`${base}-`)]);
  // The target's own ACL on the remote topic, which the source does not have.
  await kafkaAcls(backup, ['--add', '--allow-principal', 'User:local', '--operation', 'Describe', ...topic(`primary.${orders}`)]);

  const { file } = await writePipeline({
    clusters: clusters.bootstrapServers(),
    flows: [{ topics: [`${base}\\..*`], checkpoints: { enabled: false }, topic_sync: { acls: { interval_ms: INTERVAL_MS } } }],
  });
  const run = await startPipeline(file);
  await run.running();
  const expected = [
    `ALLOW User:admin READ LITERAL primary.${orders}`,
    `ALLOW User:local DESCRIBE LITERAL primary.${orders}`,
    `ALLOW User:reader READ LITERAL primary.${orders}`,
    `ALLOW User:team READ PREFIXED primary.${base}.`,
    `DENY User:blocked ALL PREFIXED primary.${base}.`,
    `DENY User:blocked READ LITERAL primary.${orders}`,
  ].sort();
  await waitFor(async () => JSON.stringify(await targetAclLines(base)) === JSON.stringify(expected), {
    what: 'the copied ACLs on the target',
    timeoutMs: 60_000,
    intervalMs: 1_000,
  }).catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}\ntarget has:\n${(await targetAclLines(base)).join('\n')}`, { cause: error });
  });

  const status = run.statuses()[0]!.acls;
  assert.equal(status.created, 5, 'five ACLs created: the sixth was there already');
  assert.equal(status.skipped['allow-write'], 2, 'ALLOW WRITE, literal and prefixed');
  assert.equal(status.skipped['not-replicated'], 3, 'the two of the topic not replicated, and the prefix no replicated topic starts with');
  const skippedLines = run.logs.filter((l) => l.message.startsWith('Topic ACL not copied: ALLOW WRITE'));
  assert.deepEqual(skippedLines.map((l) => l.meta['acl']).sort(), [
    `ALLOW User:team WRITE on topic prefix "${base}." from *`,
    `ALLOW User:writer WRITE on topic "${orders}" from *`,
  ]);

  // Removed on the source: stays on the target. Added on the source: reaches the target.
  await kafkaAcls(primary, ['--remove', '--force', '--allow-principal', 'User:reader', '--operation', 'Read', ...topic(orders)]);
  await kafkaAcls(primary, ['--add', '--allow-principal', 'User:late', '--operation', 'Describe', ...topic(orders)]);
  const later = [...expected, `ALLOW User:late DESCRIBE LITERAL primary.${orders}`].sort();
  await waitFor(async () => JSON.stringify(await targetAclLines(base)) === JSON.stringify(later), {
    what: 'the ACL added later on the target, and the removed one still there',
    timeoutMs: 60_000,
    intervalMs: 1_000,
  }).catch(async (error: unknown) => {
    throw new Error(`${(error as Error).message}\ntarget has:\n${(await targetAclLines(base)).join('\n')}`, { cause: error });
  });
  assert.equal(run.statuses()[0]!.acls.created, 6);
  assert.equal(run.statuses()[0]!.acls.errors, 0);
  await run.stop();
});

test('mirrorflow diff reports a source ACL missing on the target (exit 1), read-only, and none once the ACL sync ran', async () => {
  const base = uniqueName('acl-diff');
  const orders = `${base}.orders`;
  const primary = clusters.bootstrap('primary');
  await clusters.kit('primary').createTopic(orders, 1);
  // The remote topic exists already: the only drift is the ACL.
  await clusters.kit('backup').createTopic(`primary.${orders}`, 1);
  await kafkaAcls(primary, ['--add', '--allow-principal', 'User:reader', '--operation', 'Read', '--topic', orders]);
  await kafkaAcls(primary, ['--add', '--allow-principal', 'User:writer', '--operation', 'Write', '--topic', orders]);
  const { file } = await writePipeline({
    clusters: clusters.bootstrapServers(),
    flows: [{ topics: [`${base}\\..*`], checkpoints: { enabled: false }, topic_sync: { acls: { interval_ms: INTERVAL_MS } } }],
  });
  const missing = `  ✗ ACL missing on backup: ALLOW User:reader READ, LITERAL topic primary.${orders}, host * (the ACL sync creates it)\n`;
  const notCopied = `  · ACL of primary not copied: ALLOW User:writer WRITE, LITERAL topic ${orders}, host * (ALLOW WRITE is never copied: only the replication writes remote topics)\n`;

  const before = await runCli(['diff', file]);
  assert.equal(before.code, 1, before.stdout + before.stderr);
  assert.ok(before.stdout.includes(missing), before.stdout);
  assert.ok(before.stdout.includes(notCopied), before.stdout);
  assert.ok(before.stdout.includes('\nDrift: 1.\n'), before.stdout);
  assert.deepEqual(await targetAclLines(base), [], 'the diff created no ACL');

  const run = await startPipeline(file);
  await run.running();
  await waitFor(async () => (await targetAclLines(base)).includes(`ALLOW User:reader READ LITERAL primary.${orders}`), {
    what: 'the ACL sync to copy the ACL',
    timeoutMs: 60_000,
    intervalMs: 1_000,
  });
  await run.stop();

  const after = await runCli(['diff', file]);
  assert.equal(after.code, 0, after.stdout + after.stderr);
  assert.ok(!after.stdout.includes('ACL missing'), after.stdout);
  assert.ok(after.stdout.includes(notCopied), 'the skipped ACL is still said, as information');
  assert.ok(after.stdout.includes('  1 topic ACL in sync\n'), after.stdout);
});

test('a cluster without an authorizer: said once at info, the ACL sync ends, replication goes on', async () => {
  const shared = await testClusters();
  const source = new KafkaKit(shared.primary);
  const target = new KafkaKit(shared.backup);
  try {
    const name = uniqueName('no-authorizer');
    await source.createTopic(name, 1);
    await source.produce(name, [{ partition: 0, key: null, value: Buffer.from('v'), headers: [], timestamp: Date.now() }]);
    const { file } = await writePipeline({ flows: [{ topics: [name], checkpoints: { enabled: false }, topic_sync: { acls: { interval_ms: 1000 } } }] });
    const run = await startPipeline(file);
    await run.until(async () => (await target.count(`primary.${name}`).catch(() => 0)) === 1, { what: 'the record on the target', timeoutMs: 60_000 });
    await run.until(() => run.statuses()[0]!.acls.state === 'no-authorizer', { what: 'the ACL sync to end', timeoutMs: 30_000 });
    const said = run.logs.filter((l) => l.message.startsWith('A cluster has no authorizer'));
    assert.equal(said.length, 1);
    assert.equal(said[0]!.level, 'info');
    assert.equal(said[0]!.meta['cluster'], 'primary');
    assert.equal(run.statuses()[0]!.state, 'running');
    assert.deepEqual(
      run.logs.filter((l) => (l.level === 'warn' || l.level === 'error') && /ACL/.test(l.message)),
      [],
      'no warning about ACLs',
    );
    await run.stop();
  } finally {
    await Promise.all([source.close(), target.close()]);
  }
});
