import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from '../config';
import { electionTopicReplicationFactor } from './flow-names';

const flowWith = (heartbeats: string) =>
  parsePipeline(
    `
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
flows:
  - { source: primary, target: backup, heartbeats: ${heartbeats} }
`,
    'pipeline.yaml',
  ).flows[0]!;

describe('electionTopicReplicationFactor', () => {
  it("is the heartbeats topic's factor while heartbeats are emitted", () => {
    assert.equal(electionTopicReplicationFactor(flowWith('{ replication_factor: 3 }')), 3);
  });

  it("is the broker's default with heartbeats off, whatever factor the file carries (a one-broker cluster could not make 3)", () => {
    assert.equal(electionTopicReplicationFactor(flowWith('{ enabled: false, replication_factor: 3 }')), -1);
  });
});
