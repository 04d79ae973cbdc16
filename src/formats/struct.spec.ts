import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { RecordFormatError } from './record-format-error';
import { StructReader, StructWriter, javaUtf8 } from './struct';

const hex = (b: Buffer) => b.toString('hex');

describe('StructWriter', () => {
  it('writes big-endian integers and length-prefixed UTF-8 strings in order', () => {
    const b = new StructWriter(1).int16('a', -2).int32('b', 0x01020304).int64('c', -1).string('d', 'ü').toBuffer();
    assert.equal(hex(b), 'fffe' + '01020304' + 'ffffffffffffffff' + '0002c3bc');
  });

  it('takes 64-bit values beyond the safe range as bigint', () => {
    assert.equal(hex(new StructWriter().int64('x', 2n ** 63n - 1n).toBuffer()), '7fffffffffffffff');
    assert.equal(hex(new StructWriter().int64('x', -(2n ** 63n)).toBuffer()), '8000000000000000');
    assert.throws(() => new StructWriter().int64('x', 2n ** 63n), RecordFormatError);
  });

  it('rejects numbers that do not fit the type or have lost precision', () => {
    assert.throws(() => new StructWriter().int64('offset', 2 ** 53), /offset.*safe integer/);
    assert.throws(() => new StructWriter().int64('offset', 1.5), RecordFormatError);
    assert.throws(() => new StructWriter().int32('partition', 2 ** 31), /partition.*INT32/);
    assert.throws(() => new StructWriter().int16('version', 40000), /version.*INT16/);
  });

  it('accepts strings up to 32767 UTF-8 bytes and rejects longer ones, as Kafka does', () => {
    assert.equal(new StructWriter().string('group', 'x'.repeat(32767)).toBuffer().length, 32769);
    assert.throws(
      () => new StructWriter().string('group', 'x'.repeat(32768)),
      (e: unknown) => e instanceof RecordFormatError && /group.*32768.*32767/.test(e.message),
    );
    // The limit counts bytes, not characters.
    assert.throws(() => new StructWriter().string('group', 'ü'.repeat(16384)), RecordFormatError);
  });

  it('encodes unpaired surrogates like Java, trailing zero padding included', () => {
    // From Kafka 4.3.1's own Heartbeat(source, "B", 0).recordKey(): Java writes '?' for an
    // unpaired surrogate but sizes the buffer with Utils.utf8Length, leaving zeros at the end.
    const key = (s: string) => hex(new StructWriter().string('s', s).string('t', 'B').toBuffer());
    assert.equal(key('x\ud800y'), '0003783f790001420000');
    assert.equal(key('\udc00'), '00013f0001420000');
    assert.equal(key('\ud83d\ude00'), '0004f09f9880000142');
    assert.equal(hex(javaUtf8('a\ud800')), '613f');
  });
});

describe('StructReader', () => {
  it('reads fields in order and ignores trailing bytes', () => {
    const r = new StructReader(Buffer.from('fffe01020304ffffffffffffffff0002c3bcdead', 'hex'), 'test');
    assert.equal(r.int16('a'), -2);
    assert.equal(r.int32('b'), 0x01020304);
    assert.equal(r.int64('c'), -1);
    assert.equal(r.string('d'), 'ü');
    assert.equal(r.remaining, 2);
  });

  it('throws RecordFormatError naming the field on a short buffer', () => {
    const r = new StructReader(Buffer.from('00000000000003', 'hex'), 'offset-sync value');
    assert.throws(
      () => r.int64('upstreamOffset'),
      (e: unknown) =>
        e instanceof RecordFormatError &&
        e.retriable === false &&
        e.message === "Malformed offset-sync value: field 'upstreamOffset' needs 8 bytes, only 7 available",
    );
  });

  it('throws on a negative string length and on a string longer than the buffer', () => {
    assert.throws(() => new StructReader(Buffer.from('ffff', 'hex'), 'k').string('group'), /negative string length -1/);
    assert.throws(() => new StructReader(Buffer.from('00066d', 'hex'), 'k').string('metadata'), /needs 6 bytes, only 1/);
  });

  it('reads INT64 beyond the safe range only as bigint', () => {
    const r = new StructReader(Buffer.from('7fffffffffffffff', 'hex'), 'v');
    assert.throws(() => r.int64('offset'), /beyond the safe integer range/);
    assert.equal(new StructReader(Buffer.from('7fffffffffffffff', 'hex'), 'v').int64BigInt('offset'), 2n ** 63n - 1n);
  });
});
