import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { PluginError } from '../../core/errors';
import { frozen, header, instantiate, mirrorRecord, optionIssues } from '../test-support';
import { routeByTimestamp } from './route-by-timestamp';

const routed = (options: unknown, topic: string, iso: string) =>
  instantiate(routeByTimestamp, options).apply(mirrorRecord({ topic, timestamp: Date.parse(iso) }))!.topic;

describe('route_by_timestamp', () => {
  it("defaults to TimestampRouter's ${topic}-${timestamp} with yyyyMMdd, in UTC", () => {
    assert.equal(routed({}, 'primary.orders', '2024-03-07T23:30:00Z'), 'primary.orders-20240307');
    assert.equal(routed({}, 'primary.orders', '2024-03-08T00:00:00Z'), 'primary.orders-20240308');
  });

  it('replaces every placeholder, the topic first, and keeps the rest of the format', () => {
    assert.equal(
      routed({ topic_format: 'logs_${timestamp}_${topic}_${timestamp}', timestamp_format: 'yyyy.MM' }, 'app', '2024-11-05T00:00:00Z'),
      'logs_2024.11_app_2024.11',
    );
    assert.equal(routed({ topic_format: 'fixed', timestamp_format: 'yyyy' }, 'app', '2024-11-05T00:00:00Z'), 'fixed');
    assert.equal(routed({ topic_format: '${topic}', timestamp_format: 'HH' }, 'app', '2024-11-05T00:00:00Z'), 'app');
  });

  it('formats a record without a timestamp (-1) as the millisecond before the epoch, as Connect does', () => {
    const t = instantiate(routeByTimestamp, {});
    assert.equal(t.apply(mirrorRecord({ topic: 'a', timestamp: -1 }))!.topic, 'a-19691231');
  });

  it('changes nothing but the topic', () => {
    const t = instantiate(routeByTimestamp, { timestamp_format: 'yyyy' });
    const input = frozen(mirrorRecord({ key: null, value: Buffer.alloc(0), headers: [header('h', '1')] }));
    assert.deepEqual(t.apply(input), { ...input, topic: 'primary.orders-2023' });
  });

  it('throws a PluginError when the new name is not a legal topic name', () => {
    const t = instantiate(routeByTimestamp, { timestamp_format: 'yyyy/MM' });
    assert.throws(
      () => t.apply(mirrorRecord()),
      (e: unknown) => e instanceof PluginError && /becomes "primary.orders-2023\/11", which is not a legal Kafka topic name/.test(e.message),
    );
  });

  it('refuses a timestamp format it cannot write the way Java would, at config time', () => {
    assert.deepEqual(optionIssues(routeByTimestamp, { timestamp_format: 'EEE' }), [
      "timestamp_format: Invalid timestamp format: pattern letter 'E' is not supported (supported: y M d H m s S, and 'quoted text')",
    ]);
    assert.equal(optionIssues(routeByTimestamp, { timestamp_format: "yyyy'" }).length, 1);
    assert.deepEqual(optionIssues(routeByTimestamp, { topic_format: '' }), ['topic_format: Too small: expected string to have >=1 characters']);
    assert.deepEqual(optionIssues(routeByTimestamp, { format: 'x' }), [': Unrecognized key: "format"']);
  });
});
