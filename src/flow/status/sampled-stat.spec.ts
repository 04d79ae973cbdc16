import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SAMPLE_WINDOW_MS, SampledStat } from './sampled-stat';

test('a stat covers the last two windows: a third window drops the first', () => {
  const stat = new SampledStat();
  stat.record(0, 1, 100, 100, 100, 100);
  stat.record(SAMPLE_WINDOW_MS, 1, 10, 10, 10, 10);
  assert.equal(stat.max(SAMPLE_WINDOW_MS), 100, 'the first window is still in');
  assert.equal(stat.min(SAMPLE_WINDOW_MS), 10);
  assert.equal(stat.avg(SAMPLE_WINDOW_MS), 55);
  stat.record(2 * SAMPLE_WINDOW_MS, 2, 40, 15, 25, 25);
  assert.equal(stat.max(2 * SAMPLE_WINDOW_MS), 25, 'the first window is gone');
  assert.equal(stat.min(2 * SAMPLE_WINDOW_MS), 10);
  assert.equal(stat.avg(2 * SAMPLE_WINDOW_MS), 50 / 3);
  assert.equal(stat.last, 25);
});

test('a reused sample starts empty: nothing of the window it held before counts', () => {
  const stat = new SampledStat();
  stat.record(0, 5, 5000, 1, 1000, 7);
  stat.record(SAMPLE_WINDOW_MS, 1, 3, 3, 3, 3);
  stat.record(2 * SAMPLE_WINDOW_MS, 1, 4, 4, 4, 4);
  const now = 2 * SAMPLE_WINDOW_MS;
  assert.equal(stat.min(now), 3);
  assert.equal(stat.max(now), 4);
  assert.equal(stat.avg(now), 3.5);
  assert.equal(stat.ratePerSecond(now), 7 / (SAMPLE_WINDOW_MS / 1000));
});

test('windows without records read NaN, and a rate of 0, once both samples are old', () => {
  const stat = new SampledStat();
  assert.ok(Number.isNaN(stat.avg(0)), 'never recorded');
  assert.equal(stat.ratePerSecond(0), 0);
  stat.record(1_000, 3, 30, 5, 15, 15);
  assert.equal(stat.avg(1_000 + 2 * SAMPLE_WINDOW_MS - 1), 10, 'still within two windows');
  const later = 1_000 + 2 * SAMPLE_WINDOW_MS;
  assert.ok(Number.isNaN(stat.min(later)));
  assert.ok(Number.isNaN(stat.max(later)));
  assert.ok(Number.isNaN(stat.avg(later)));
  assert.equal(stat.ratePerSecond(later), 0);
  assert.equal(stat.last, 15, 'the last value stays (Kafka Value)');
});

test('a rate counts from the oldest live sample, never less than one window', () => {
  const stat = new SampledStat();
  stat.record(0, 1, 300, 300, 300, 300);
  assert.equal(stat.ratePerSecond(1_000), 300 / 30, 'one window at least');
  stat.record(40_000, 1, 300, 300, 300, 300);
  assert.equal(stat.ratePerSecond(50_000), 600 / 50, 'from the first sample start');
});
