import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { checkFlowLoops } from './check-flow-loops';
import { parsePipeline } from '../parse-pipeline';
import { topicNameSamples } from './topic-name-samples';
import { ConfigError, formatConfigIssue } from '../../core/errors';

const clusters = 'clusters: { a: { bootstrap_servers: "h:1" }, b: { bootstrap_servers: "h:2" }, c: { bootstrap_servers: "h:3" } }';

/** The loops found in a pipeline, as the loader reports them. */
function loops(flows: string): string[] {
  try {
    const config = parsePipeline(`${clusters}\nflows:\n${flows}`, 'p.yaml', { env: {} });
    assert.deepEqual(checkFlowLoops(config), []);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.issues.map((issue) => issue.message);
  }
}

describe('checkFlowLoops', () => {
  it('lets the default policy replicate both ways and in rings: names carry the chain', () => {
    assert.deepEqual(loops('  - { source: a, target: b }\n  - { source: b, target: a }\n  - { source: b, target: c }\n  - { source: c, target: a }'), []);
  });

  it('finds the identity policy both ways, with an example topic', () => {
    const config = `${clusters}\nflows:\n  - { source: a, target: b, replication_policy: { type: identity } }\n  - { source: b, target: a, replication_policy: { type: identity } }`;
    assert.throws(
      () => parsePipeline(config, 'p.yaml', { env: {} }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.issues.map((issue) => formatConfigIssue(issue)).join('\n') ===
          'p.yaml:3:5: flows[0].provenance.enabled: flows a->b, b->a would copy topic "x" around without end\n  hint: the identity policy keeps topic names, so a copy looks like an original: turn on provenance headers on a->b, b->a (provenance.enabled: true, or in mm2.properties provenance.header.enable = true), so a record never returns to a cluster it has been in; or use the default policy on one of these flows, or topic filters that keep copies out',
    );
  });

  it('finds a ring of three and a mix of policies, whose names grow without end', () => {
    assert.equal(
      loops(
        '  - { source: a, target: b, replication_policy: { type: identity } }\n  - { source: b, target: c, replication_policy: { type: identity } }\n  - { source: c, target: a, replication_policy: { type: identity } }',
      ).length,
      1,
    );
    assert.deepEqual(loops('  - { source: a, target: b, replication_policy: { type: identity } }\n  - { source: b, target: a }'), [
      'flows a->b, b->a would copy topic "x" around without end',
    ]);
    assert.equal(loops('  - { source: a, target: b, replication_policy: { type: default, separator: "_" } }\n  - { source: b, target: a }').length, 1);
  });

  it('lets identity flows through when their filters keep copies apart', () => {
    assert.deepEqual(
      loops(
        '  - { source: a, target: b, topics: ["a-.*"], replication_policy: { type: identity } }\n  - { source: b, target: a, topics: ["b-.*"], replication_policy: { type: identity } }',
      ),
      [],
    );
    // Disabled flows copy nothing.
    assert.deepEqual(
      loops(
        '  - { source: a, target: b, replication_policy: { type: identity } }\n  - { source: b, target: a, enabled: false, replication_policy: { type: identity } }',
      ),
      [],
    );
  });

  it('lets identity flows run both ways and round a ring when they carry provenance headers', () => {
    const on = 'provenance: { enabled: true }, replication_policy: { type: identity }';
    assert.deepEqual(loops(`  - { source: a, target: b, ${on} }\n  - { source: b, target: a, ${on} }`), []);
    assert.deepEqual(loops(`  - { source: a, target: b, ${on} }\n  - { source: b, target: c, ${on} }\n  - { source: c, target: a, ${on} }`), []);
    // Every direction between three clusters: diamonds, which the headers also keep to one copy.
    const mesh = ['a', 'b', 'c'].flatMap((s) => ['a', 'b', 'c'].filter((t) => t !== s).map((t) => `  - { source: ${s}, target: ${t}, ${on} }`));
    assert.deepEqual(loops(mesh.join('\n')), []);
    // Mixed with the default policy, whose names grow: still stopped by the headers.
    assert.deepEqual(loops(`  - { source: a, target: b, ${on} }\n  - { source: b, target: a, provenance: { enabled: true } }`), []);
  });

  it('names the flow that lacks provenance headers where one would close the loop', () => {
    const on = 'provenance: { enabled: true }, replication_policy: { type: identity }';
    const config = `${clusters}\nflows:\n  - { source: a, target: b, ${on} }\n  - { source: b, target: c, replication_policy: { type: identity } }\n  - { source: c, target: a, ${on} }`;
    assert.throws(
      () => parsePipeline(config, 'p.yaml', { env: {} }),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.issues.length === 1 &&
        error.issues[0]!.path === 'flows[1].provenance.enabled' &&
        error.issues[0]!.hint!.includes('turn on provenance headers on b->c (provenance.enabled: true, or in mm2.properties provenance.header.enable = true)'),
    );
  });

  it("takes its example topics from the flows' own patterns", () => {
    assert.deepEqual(
      loops(
        '  - { source: a, target: b, topics: ["orders\\\\.eu"], replication_policy: { type: identity } }\n  - { source: b, target: a, topics: ["orders\\\\..*"], replication_policy: { type: identity } }',
      ),
      ['flows a->b, b->a would copy topic "orders.eu" around without end'],
    );
  });
});

describe('topicNameSamples', () => {
  it('reads literal text, classes, groups and quantifiers', () => {
    assert.deepEqual(topicNameSamples('orders'), ['orders']);
    assert.deepEqual(topicNameSamples('.*'), ['x', '']);
    assert.deepEqual(topicNameSamples('[a-z]+-\\d{2}'), ['a-00']);
    assert.deepEqual(topicNameSamples('(?i)(eu|us)\\.orders?|x'), ['eu.orders', 'x', 'eu.order']);
    assert.deepEqual(topicNameSamples('a(?=b)'), []);
  });
});
