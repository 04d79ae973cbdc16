import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { frozen, header, instantiate, mirrorRecord, optionIssues } from '../test-support';
import { dropHeaders } from './drop-headers';

describe('drop_headers', () => {
  it('removes every header with a listed key, repeats included, keeping the order of the rest', () => {
    const t = instantiate(dropHeaders, { headers: ['secret', 'trace'] });
    const input = frozen(
      mirrorRecord({
        headers: [header('a', '1'), header('secret', 'x'), header('b', null), header('secret', 'y'), header('trace', ''), header('a', '2')],
      }),
    );
    assert.deepEqual(t.apply(input)!.headers, [header('a', '1'), header('b', null), header('a', '2')]);
    assert.equal(input.headers.length, 6, 'the input record is unchanged');
  });

  it('hands on a record without those headers as the same object', () => {
    const t = instantiate(dropHeaders, { headers: ['secret'] });
    const input = mirrorRecord({ headers: [header('a', '1')] });
    assert.equal(t.apply(input), input);
    const bare = mirrorRecord({ key: null, value: null, headers: [] });
    assert.equal(t.apply(bare), bare);
  });

  it('matches keys exactly (case-sensitive)', () => {
    const t = instantiate(dropHeaders, { headers: ['Secret'] });
    assert.deepEqual(t.apply(mirrorRecord({ headers: [header('secret', '1')] }))!.headers, [header('secret', '1')]);
  });

  it('can remove all headers, leaving key and value untouched', () => {
    const t = instantiate(dropHeaders, { headers: ['a'] });
    const out = t.apply(mirrorRecord({ key: Buffer.alloc(0), value: null, headers: [header('a', '1'), header('a', '2')] }))!;
    assert.deepEqual(out.headers, []);
    assert.deepEqual([out.key, out.value], [Buffer.alloc(0), null]);
  });

  it('needs a non-empty list of keys', () => {
    assert.equal(optionIssues(dropHeaders, { headers: [] }).length, 1);
    assert.equal(optionIssues(dropHeaders, { headers: 'secret' }).length, 1);
    assert.equal(optionIssues(dropHeaders, {}).length, 1);
  });
});
