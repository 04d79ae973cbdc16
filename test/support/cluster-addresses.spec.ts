import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseTestClusters } from './clusters';
import { checkClustersAnswer } from './run-tests';

test('MIRRORFLOW_TEST_CLUSTERS may give a cluster of several brokers as a comma-separated list', () => {
  const clusters = parseTestClusters('{"primary":"127.0.0.1:1,127.0.0.1:2,127.0.0.1:3","backup":"127.0.0.1:4"}');
  assert.equal(clusters.primary, '127.0.0.1:1,127.0.0.1:2,127.0.0.1:3');
  assert.throws(() => parseTestClusters('{"primary":"127.0.0.1:1"}'), /must map "primary" and "backup"/);
});

test('checkClustersAnswer asks every broker of a comma-separated list, and names the one that does not answer', async () => {
  const asked: string[] = [];
  const ready = async (host: string, port: number): Promise<boolean> => {
    asked.push(`${host}:${port}`);
    return port !== 3;
  };
  await checkClustersAnswer({ primary: '127.0.0.1:1, 127.0.0.1:2', backup: '127.0.0.1:4' }, ready);
  assert.deepEqual(asked, ['127.0.0.1:1', '127.0.0.1:2', '127.0.0.1:4']);
  await assert.rejects(checkClustersAnswer({ primary: '127.0.0.1:1,127.0.0.1:3' }, ready), /Cluster primary: the broker at 127\.0\.0\.1:3 does not answer/);
  await assert.rejects(
    checkClustersAnswer({ primary: '127.0.0.1:1' }, async () => Promise.reject(new Error('refused'))),
    /the broker at 127\.0\.0\.1:1 does not answer/,
  );
});
