/**
 * The distance workloads at smoke sizes: mirrorflow through delaying proxies in front of the
 * source and the target, and MM2 through the one in front of the target (the smoke's only MM2
 * run: MM2 takes longest of all, and its source side is configured as its target side is), on
 * proxied clusters of this file's own, each run checked record for record. Correctness only;
 * timings are never asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startProxiedCluster } from '../support/proxied-cluster';
import { TIMEOUT_MS, assertCorrect, smoke } from './bench-smoke-support';

test('the distance workloads run through delaying proxies, for mirrorflow and MM2', { timeout: TIMEOUT_MS }, async () => {
  const [source, target] = await Promise.all([startProxiedCluster('bench-far-source'), startProxiedCluster('bench-far-target')]);
  try {
    const clusters = { source: source.direct, target: target.direct, proxies: { source: source.proxy, target: target.proxy } };
    assertCorrect(await smoke(['bulk-far-target'], ['mirrorflow', 'mm2-default'], clusters), 2);
    assertCorrect(await smoke(['compressed-far-source'], ['mirrorflow'], clusters), 1);
    // The replicators' connections went through the proxies; the harness's never do.
    assert.ok(source.proxy.acceptedConnections > 0 && target.proxy.acceptedConnections > 0, 'both proxies carried connections');
  } finally {
    await Promise.all([source.stop(), target.stop()]);
  }
});
