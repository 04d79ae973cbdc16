/**
 * The distance workloads at smoke sizes: mirrorflow and MM2 through delaying proxies in front of
 * the source or the target, on proxied clusters of this file's own, each run checked record for
 * record. Correctness only; timings are never asserted.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startProxiedCluster } from '../support/proxied-cluster';
import { TIMEOUT_MS, assertCorrect, smoke } from './bench-smoke-support';

test('the distance workloads run through delaying proxies, for mirrorflow and MM2', { timeout: TIMEOUT_MS }, async () => {
  const [source, target] = await Promise.all([startProxiedCluster('bench-far-source'), startProxiedCluster('bench-far-target')]);
  try {
    const report = await smoke(['bulk-far-target', 'compressed-far-source'], ['mirrorflow', 'mm2-default'], {
      source: source.direct,
      target: target.direct,
      proxies: { source: source.proxy, target: target.proxy },
    });
    assertCorrect(report, 4);
    // The replicators' connections went through the proxies; the harness's never do.
    assert.ok(source.proxy.acceptedConnections > 0 && target.proxy.acceptedConnections > 0, 'both proxies carried connections');
  } finally {
    await Promise.all([source.stop(), target.stop()]);
  }
});
