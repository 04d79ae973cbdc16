import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parsePipeline } from '../../config/parse-pipeline';
import { flowSubjects } from './schema-copy';

function flowOf(yaml: string) {
  return parsePipeline(yaml, 'pipeline.yaml').flows[0]!;
}

const BASE = `
name: p
clusters:
  primary: { bootstrap_servers: ['127.0.0.1:9092'] }
  backup: { bootstrap_servers: ['127.0.0.1:9093'] }
`;

test("the flow's subjects: TopicNameStrategy subjects of replicated topics, on the sides in `on`, under the remote topic's subject", () => {
  const flow = flowOf(`${BASE}
flows:
  - source: primary
    target: backup
    topics: ['orders.*']
    topics_exclude: ['orders-internal']
    schema_registry: { source: { url: 'http://127.0.0.1:8081' }, target: { url: 'http://127.0.0.1:8082' }, on: [value] }
`);
  const subjects = ['orders-value', 'orders-key', 'orders-internal-value', 'payments-value', 'orders', 'primary.heartbeats-value', 'backup.orders-value'];
  assert.deepEqual(flowSubjects(flow, subjects), [{ subject: 'orders-value', targetSubject: 'primary.orders-value' }]);
});
