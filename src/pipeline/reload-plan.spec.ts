import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from '../config';
import { planReload } from './reload-plan';

const file = (flows: string, extra = ''): string => `
name: shop
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
${extra}
flows:
${flows}
`;

const plan = (before: string, after: string) => {
  const current = parsePipeline(before, 'pipeline.yaml');
  const next = parsePipeline(after, 'pipeline.yaml');
  return planReload(current, next, current.flows);
};

const both = `  - { source: primary, target: backup, topics: ['orders.*'] }
  - { source: backup, target: primary, topics: ['stock.*'] }`;

describe('planReload: what a changed pipeline file does to the running flows', () => {
  test('the same file changes nothing', () => {
    assert.deepEqual(plan(file(both), file(both)), { added: [], removed: [], changed: [], unchanged: ['primary->backup', 'backup->primary'], notes: [] });
  });

  test('a widened topic filter re-assembles that flow only; the other goes on', () => {
    const widened = both.replace("['orders.*']", "['orders.*', 'returns.*']");
    const result = plan(file(both), file(widened));
    assert.deepEqual([result.changed, result.unchanged, result.added, result.removed], [['primary->backup'], ['backup->primary'], [], []]);
  });

  test('flows are matched by name, not by their place in the file', () => {
    const swapped = `  - { source: backup, target: primary, topics: ['stock.*'] }
  - { source: primary, target: backup, topics: ['orders.*'] }`;
    assert.deepEqual(plan(file(both), file(swapped)).changed, []);
  });

  test('a transform that moved in the file but kept its type and options is no change', () => {
    const withTransform = (flows: string) => `${flows}
    transforms: [{ type: insert_header, header: origin, value: primary }]`;
    const one = `  - { source: backup, target: primary, topics: ['stock.*'] }
  - source: primary
    target: backup
    topics: ['orders.*']`;
    const two = `  - source: primary
    target: backup
    topics: ['orders.*']`;
    const result = plan(file(withTransform(one)), file(withTransform(two)));
    assert.deepEqual([result.changed, result.removed], [[], ['backup->primary']]);
  });

  test('a flow added and a flow removed', () => {
    const first = `  - { source: primary, target: backup, topics: ['orders.*'] }`;
    const second = `  - { source: backup, target: primary, topics: ['stock.*'] }`;
    const result = plan(file(first), file(second));
    assert.deepEqual([result.added, result.removed, result.unchanged], [['backup->primary'], ['primary->backup'], []]);
  });

  test('a flow turned off (and its heartbeats too) stops', () => {
    const off = both.replace("topics: ['stock.*'] }", "topics: ['stock.*'], enabled: false, heartbeats: { enabled: false } }");
    assert.deepEqual(plan(file(both), file(off)).removed, ['backup->primary']);
  });

  test('changed cluster settings or a new name need a restart and change nothing', () => {
    const moved = file(both).replace('b:9092', 'c:9092');
    const refused = plan(file(both), moved);
    assert.match(refused.refused ?? '', /clusters\.backup.*needs a restart/);
    assert.deepEqual([refused.changed, refused.added, refused.removed], [[], [], []]);
    assert.match(plan(file(both), file(both).replace('name: shop', 'name: shop2')).refused ?? '', /name changed \(shop → shop2\).*restart/);
  });

  test('logging and http changes are noted as taking effect at the next start', () => {
    assert.deepEqual(plan(file(both), file(both, 'logging: { level: debug }')).notes, ['logging changes take effect at the next start']);
  });
});
