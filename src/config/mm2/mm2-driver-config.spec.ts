import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Mm2Property } from './mm2-document';
import { Mm2DriverConfig, javaParseBoolean } from './mm2-driver-config';

function driver(lines: Record<string, string>, clusters = ['A', 'B']): Mm2DriverConfig {
  const props = new Map<string, Mm2Property>(Object.entries(lines).map(([key, value]) => [key, { key, value }]));
  return new Mm2DriverConfig(props, clusters);
}

const values = (map: ReadonlyMap<string, Mm2Property>): Record<string, string> => Object.fromEntries([...map].map(([k, p]) => [k, p.value]));

describe('Mm2DriverConfig (MirrorMakerConfig: clusterPairs, connectorBaseConfig)', () => {
  it('runs a herder for every ordered pair while heartbeats are on, enabled or not', () => {
    assert.deepEqual(driver({ 'A->B.enabled': 'true' }).herderPairs(), [
      { source: 'A', target: 'B' },
      { source: 'B', target: 'A' },
    ]);
  });

  it('drops pairs whose heartbeats are off and that are not enabled; the pair setting beats the global one', () => {
    assert.deepEqual(driver({ 'emit.heartbeats.enabled': 'false', 'A->B.enabled': 'true' }).herderPairs(), [{ source: 'A', target: 'B' }]);
    assert.deepEqual(driver({ 'emit.heartbeats.enabled': 'false', 'B->A.emit.heartbeats.enabled': 'true' }).herderPairs(), [{ source: 'B', target: 'A' }]);
    assert.deepEqual(driver({ 'A->B.emit.heartbeats.enabled': 'false', 'B->A.emit.heartbeats.enabled': 'FALSE' }).herderPairs(), []);
  });

  it('decides herders with Boolean.parseBoolean: no trimming', () => {
    assert.equal(javaParseBoolean('TRUE'), true);
    assert.equal(javaParseBoolean('true '), false);
    assert.deepEqual(driver({ 'emit.heartbeats.enabled': 'false', 'A->B.enabled': 'true ' }).herderPairs(), []);
  });

  it('builds the connector config in MM2 order: top-level connector keys, clusters, driver values, flow keys, enabled=false', () => {
    const d = driver({
      topics: 'a.*',
      'use.defaults.from': 'source', // not a connector key: dropped
      'consumer.isolation.level': 'read_committed', // dropped at the top level
      'replication.policy.separator': '_',
      'A->B.topics': 'b.*',
      'A.bootstrap.servers': 'a:9092',
      'A.consumer.isolation.level': 'read_committed',
    });
    const config = values(d.connectorConfig({ source: 'A', target: 'B' }));
    assert.equal(config['topics'], 'b.*');
    assert.equal(config['use.defaults.from'], undefined);
    assert.equal(config['consumer.isolation.level'], undefined);
    assert.equal(config['replication.policy.separator'], '_');
    assert.equal(config['source.cluster.bootstrap.servers'], 'a:9092');
    assert.equal(config['source.consumer.bootstrap.servers'], 'a:9092');
    assert.equal(config['source.consumer.isolation.level'], 'read_committed');
    assert.equal(config['source.cluster.alias'], 'A');
    assert.equal(config['target.cluster.alias'], 'B');
    assert.equal(config['enabled'], 'false');
    // A top-level `enabled` reaches every flow (it is a connector key).
    assert.equal(values(driver({ enabled: 'true' }).connectorConfig({ source: 'B', target: 'A' }))['enabled'], 'true');
  });

  it("lets a cluster's A.consumer.x beat the flow's A->B.consumer.x, and A->B.source.consumer.x beat both", () => {
    const d = driver({ 'A.consumer.isolation.level': 'read_committed', 'A->B.consumer.isolation.level': 'read_uncommitted' });
    const pair = { source: 'A', target: 'B' };
    const consumer = values(d.clientConfig(d.connectorConfig(pair), 'source', 'consumer'));
    assert.equal(consumer['isolation.level'], 'read_committed');
    assert.equal(consumer['enable.auto.commit'], 'false');
    assert.equal(consumer['auto.offset.reset'], 'earliest');
    const overridden = driver({ 'A.consumer.isolation.level': 'read_committed', 'A->B.source.consumer.isolation.level': 'read_uncommitted' });
    assert.equal(values(overridden.clientConfig(overridden.connectorConfig(pair), 'source', 'consumer'))['isolation.level'], 'read_uncommitted');
  });

  it('gives every cluster the top-level connection settings it does not set itself', () => {
    const d = driver({
      'security.protocol': 'SSL',
      'bootstrap.servers': 'shared:9092',
      'B.security.protocol': 'PLAINTEXT',
      'B.bootstrap.servers': 'b:9092',
      'client.id': 'x',
    });
    assert.deepEqual(
      [
        values(d.clusterProps('A'))['security.protocol'],
        values(d.clusterProps('A'))['bootstrap.servers'],
        values(d.clusterProps('A'))['admin.security.protocol'],
      ],
      ['SSL', 'shared:9092', 'SSL'],
    );
    assert.equal(values(d.clusterProps('B'))['security.protocol'], 'PLAINTEXT');
    assert.equal(values(d.clusterProps('B'))['producer.security.protocol'], 'PLAINTEXT');
    // client.id is not a connection key MM2 hands down from the top level.
    assert.equal(values(d.clusterProps('A'))['client.id'], undefined);
  });

  it("gives a target cluster's worker its own keys plus the top-level worker prefixes", () => {
    const d = driver({ 'B.offset.flush.interval.ms': '1000', 'offset.flush.interval.ms': '2000', 'offset.storage.replication.factor': '1' });
    const worker = values(d.workerConfig('B'));
    assert.equal(worker['offset.flush.interval.ms'], '1000');
    assert.equal(worker['offset.storage.replication.factor'], '1');
    assert.equal(values(d.workerConfig('A'))['offset.flush.interval.ms'], undefined);
  });
});
