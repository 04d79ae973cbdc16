import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineTransform, z, type MirrorRecord, type TransformDefinition } from './api';
import { checkPluginContract } from './contract';

/** A plugin whose apply is `apply`, with one required option `tag`. */
const plugin = (
  apply: (record: MirrorRecord) => MirrorRecord | undefined,
  schema: z.ZodType = z.strictObject({ tag: z.string().min(1) }),
): TransformDefinition => defineTransform({ name: 'sample_plugin', summary: 'A plugin under test.', configSchema: schema, create: () => ({ apply }) });

const samples = { options: { tag: 'x' }, invalid: [{ options: {}, option: 'tag' }] };

function failedChecks(definition: TransformDefinition, given: Parameters<typeof checkPluginContract>[1] = samples): string[] {
  return checkPluginContract(definition, given)
    .filter((c) => c.result === 'fail')
    .map((c) => c.check.split(':')[0]!);
}

describe('checkPluginContract', () => {
  it('passes a well-behaved plugin, routing an injected throw by errors.tolerance', () => {
    const checks = checkPluginContract(
      plugin((r) => ({ ...r, headers: [...r.headers, { key: 'tag', value: null }] })),
      samples,
    );
    assert.deepEqual(
      checks.filter((c) => c.result !== 'pass'),
      [],
    );
    assert.ok(checks.some((c) => c.check.startsWith('errors: with tolerance all')));
  });

  it('fails a plugin that mutates its input or is not deterministic', () => {
    let n = 0;
    assert.deepEqual(
      failedChecks(
        plugin((r) => {
          if (r.value !== null) r.value[0] = 0x21;
          return r;
        }),
      ),
      ['purity'],
    );
    assert.deepEqual(failedChecks(plugin((r) => ({ ...r, value: r.value === null ? null : Buffer.from(String(n++)) }))), ['purity']);
  });

  it('fails a plugin that reorders headers or writes a null header value as empty', () => {
    assert.deepEqual(failedChecks(plugin((r) => ({ ...r, headers: [...r.headers].reverse() }))), ['headers']);
    const emptied = plugin((r) => ({ ...r, headers: r.headers.map((h) => ({ key: h.key, value: h.value ?? Buffer.alloc(0) })) }));
    assert.deepEqual(failedChecks(emptied), ['headers']);
  });

  it('fails a plugin that turns a tombstone into a value, or crashes on one', () => {
    assert.deepEqual(failedChecks(plugin((r) => ({ ...r, value: r.value ?? Buffer.alloc(0) }))), ['tombstones']);
    assert.deepEqual(failedChecks(plugin((r) => ({ ...r, value: Buffer.from(r.value!.toString('utf8').toUpperCase()) }))), ['tombstones']);
  });

  it('fails a plugin whose schema accepts a misspelt option, or a bad value without naming the option', () => {
    assert.deepEqual(failedChecks(plugin((r) => r, z.object({ tag: z.string().min(1) }))), ['config']);
    const unnamed = z.strictObject({ tag: z.string() }).refine((c) => c.tag !== '', { message: 'bad' });
    assert.deepEqual(
      failedChecks(
        plugin((r) => r, unnamed),
        { options: { tag: 'x' }, invalid: [{ options: { tag: '' }, option: 'tag' }] },
      ),
      ['config'],
    );
  });

  it("routes a plugin's own failure by errors.tolerance, and fails when the sample record does not fail", () => {
    const strict = plugin((r) => {
      if (r.value?.toString() === 'bad') throw new Error('no');
      return r;
    });
    const failing = { value: Buffer.from('bad') };
    assert.deepEqual(failedChecks(strict, { ...samples, failing }), []);
    assert.deepEqual(failedChecks(strict, { ...samples, failing: { value: Buffer.from('fine') } }), ['errors', 'errors']);
  });

  it('stops at a definition of the wrong shape or options it refuses', () => {
    const broken = { name: 'Broken', summary: '', configSchema: {}, create: 1 } as unknown as TransformDefinition;
    assert.deepEqual(failedChecks(broken), ['definition']);
    assert.deepEqual(
      failedChecks(
        plugin((r) => r),
        { options: {} },
      ),
      ['config'],
    );
  });
});
