import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ClusterUnavailableError,
  ConfigError,
  KafkaAuthorizationError,
  KafkaTransportError,
  PluginError,
  RecordFailedError,
  RecordRefusedError,
  errorCluster,
  errorKind,
  formatConfigIssue,
} from './errors';

const at = { topic: 'orders', partition: 0, offset: 7 };

test('errorKind names what went wrong from the error class', () => {
  assert.equal(errorKind(new KafkaTransportError('backup', 'timed out', true)), 'transport-retriable');
  assert.equal(errorKind(new KafkaTransportError('backup', 'unsupported version', false)), 'transport');
  assert.equal(errorKind(new KafkaAuthorizationError('backup', 'TOPIC_AUTHORIZATION_FAILED', 'User:mm2')), 'authorization', 'not just a transport failure');
  assert.equal(errorKind(new ClusterUnavailableError('primary', 'SASL authentication failed')), 'unavailable');
  assert.equal(errorKind(new RecordRefusedError('backup', 0, 0, 'MESSAGE_TOO_LARGE')), 'record-refused');
  assert.equal(errorKind(new RecordFailedError(at, { kind: 'write' }, 'too large')), 'record-refused');
  assert.equal(errorKind(new RecordFailedError(at, { kind: 'transform', plugin: 'mask', step: '0' }, 'boom')), 'transform-failed');
  assert.equal(errorKind(new PluginError('mask', 'threw')), 'transform-failed');
  assert.equal(errorKind(new ConfigError([{ message: 'bad' }])), 'config');
  assert.equal(errorKind(new Error('something else')), 'other');
  assert.equal(errorKind('a string'), 'other');
});

test('errorCluster: the cluster an error names, if any', () => {
  assert.equal(errorCluster(new KafkaAuthorizationError('backup', 'denied', undefined)), 'backup');
  assert.equal(errorCluster(new ClusterUnavailableError('primary', 'down')), 'primary');
  assert.equal(errorCluster(new RecordRefusedError('backup', 0, 0, 'too large')), 'backup');
  assert.equal(errorCluster(new RecordFailedError(at, { kind: 'write' }, 'too large')), undefined);
  assert.equal(errorCluster(new Error('x')), undefined);
});

test('a configuration problem reads file:line:col: key: message, its hint on the next line', () => {
  const issue = {
    file: 'mm2.properties',
    line: 5,
    column: 1,
    path: 'renamerefresh.topics',
    message: 'unknown MM2 setting',
    hint: 'did you mean "refresh.topics.enabled"?',
  };
  assert.equal(formatConfigIssue(issue), 'mm2.properties:5:1: renamerefresh.topics: unknown MM2 setting\n  hint: did you mean "refresh.topics.enabled"?');
  assert.equal(
    formatConfigIssue(issue, 'warning'),
    'mm2.properties:5:1: warning: renamerefresh.topics: unknown MM2 setting\n  hint: did you mean "refresh.topics.enabled"?',
  );
  assert.equal(
    formatConfigIssue({ file: 'p.yaml', message: 'cannot read the pipeline file: no such file' }),
    'p.yaml: cannot read the pipeline file: no such file',
  );
  assert.equal(
    formatConfigIssue({ path: 'flows[0].batching.max_records', message: 'must be at least 1', hint: 'set by --set flows.0.batching.max_records=0' }),
    'flows[0].batching.max_records: must be at least 1\n  hint: set by --set flows.0.batching.max_records=0',
  );
});
