import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineTransform, z } from './api';
import { PluginRegistry } from './registry';
import { runWithTolerance } from './run-with-tolerance';
import { mirrorRecord } from './test-support';
import { silentLogger } from '../core/ports/logger';
import { buildTransformChain } from './transform-chain';

/** Throws on values `bad`, drops values `drop`, passes the rest. */
const picky = defineTransform({
  name: 'picky',
  summary: 'Throws on bad, drops drop.',
  configSchema: z.strictObject({}),
  create: () => ({
    apply(record) {
      if (record.value?.toString() === 'bad') throw new Error('bad value');
      return record.value?.toString() === 'drop' ? undefined : record;
    },
  }),
});
const chain = buildTransformChain([{ type: 'picky', options: {}, path: 'flows[0].transforms[0]' }], new PluginRegistry([picky]), {
  flow: { source: 'primary', target: 'backup' },
  logger: silentLogger,
});
const records = ['a', 'drop', 'bad', 'b'].map((value, offset) =>
  mirrorRecord({ value: Buffer.from(value), source: { topic: 'orders', partition: 0, offset } }),
);
const values = (run: ReturnType<typeof runWithTolerance>) => run.output.map((r) => r.value?.toString());

describe('runWithTolerance', () => {
  it('none: keeps what came before the failing record and ends with its failure', () => {
    const run = runWithTolerance(chain, records, 'none');
    assert.deepEqual(values(run), ['a']);
    assert.equal(run.deadLetters.length, 0);
    assert.match(run.failure?.message ?? '', /offset 2 failed in transform "picky" \(flows\[0\]\.transforms\[0\]\)/);
  });

  it('all: sends the failing record to the dead letters and goes on', () => {
    const run = runWithTolerance(chain, records, 'all');
    assert.deepEqual(values(run), ['a', 'b']);
    assert.deepEqual(
      run.deadLetters.map((d) => d.record.source.offset),
      [2],
    );
    assert.equal(run.failure, undefined);
  });
});
