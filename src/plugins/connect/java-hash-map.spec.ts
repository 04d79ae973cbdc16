import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JavaHashMap, javaStringHash } from './java-hash-map';

const keys = (names: string[], make: (m: JavaHashMap) => JavaHashMap = (m) => m): string[] => make(JavaHashMap.of(names.map((n) => [n, null]))).keys();

describe("Java's HashMap order", () => {
  it('hashes strings as String.hashCode', () => {
    assert.equal(javaStringHash(''), 0);
    assert.equal(javaStringHash('a'), 97);
    assert.equal(javaStringHash('hello world'), 1794106052);
    assert.equal(javaStringHash('polygenelubricants'), -2147483648);
  });

  it('iterates by bucket of a 16-slot table, insertion order within a bucket', () => {
    // Java: new HashMap<>() with these puts iterates p q r s t u v w x y z o ("o" is bucket 15).
    assert.deepEqual(keys(['z', 'y', 'x', 'w', 'v', 'u', 't', 's', 'r', 'q', 'p', 'o']), ['p', 'q', 'r', 's', 't', 'u', 'v', 'w', 'x', 'y', 'z', 'o']);
  });

  it('sizes a copy for the map it copies (JDK 17: 12 entries get 32 slots)', () => {
    const copy = (m: JavaHashMap) => JavaHashMap.copyOf(m).set('origin', null);
    assert.deepEqual(keys(['z', 'y', 'x', 'w', 'v', 'u', 't', 's', 'r', 'q', 'p', 'o'], copy), [
      'origin',
      'o',
      'p',
      'q',
      'r',
      's',
      't',
      'u',
      'v',
      'w',
      'x',
      'y',
      'z',
    ]);
  });

  it('grows past 0.75 full and keeps a replaced key in its place', () => {
    const map = JavaHashMap.withCapacity(2).set('b', null).set('a', null);
    assert.deepEqual(map.keys(), ['a', 'b']);
    map.set('b', true);
    assert.deepEqual(
      [...map],
      [
        ['a', null],
        ['b', true],
      ],
    );
  });
});
