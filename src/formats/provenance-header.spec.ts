import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  PROVENANCE_HEADER,
  decodeProvenance,
  encodeProvenance,
  lastProvenanceHeader,
  parseProvenancePrefix,
  provenancePrefix,
  provenanceValue,
  splitProvenance,
} from './provenance-header';

describe('provenance header', () => {
  it('writes the documented text: version, clusters in order, origin topic, partition and offset', () => {
    const value = encodeProvenance({ clusters: ['west', 'east', 'south'], topic: 'orders', partition: 3, offset: 1234 });
    assert.equal(value.toString('latin1'), '1|west>east>south|orders|3|1234');
    assert.equal(value.length, 31);
    assert.deepEqual(decodeProvenance(value), { clusters: ['west', 'east', 'south'], topic: 'orders', partition: 3, offset: 1234 });
  });

  it('reads back every legal topic name and alias, and offsets up to 2^53 - 1', () => {
    const p = { clusters: ['dc-1', 'DC_2'], topic: 'a.b_c-D9', partition: 2147483647, offset: Number.MAX_SAFE_INTEGER };
    assert.deepEqual(decodeProvenance(encodeProvenance(p)), p);
    assert.deepEqual(splitProvenance(provenanceValue(provenancePrefix(['a'], 't', 0), 0)), { prefix: '1|a|t|0|', offset: 0 });
  });

  it('takes anything else for a header that is not its own', () => {
    for (const text of [
      '',
      '2|a>b|t|0|1',
      '1|a>b|t|0|',
      '1|a>b|t|0|01',
      '1|a>b|t|0|-1',
      '1|a>b|t|0|99999999999999999',
      '1|a>b|t|x|1',
      '1|a>b|t|00|1',
      '1|a>>b|t|0|1',
      '1|a b|t|0|1',
      '1|a>b|t/x|0|1',
      '1|a>b|t|0|1|2',
      '1||t|0|1',
    ]) {
      assert.equal(decodeProvenance(Buffer.from(text, 'latin1')), undefined, text);
    }
    assert.equal(parseProvenancePrefix('1|a|t|0'), undefined);
  });

  it('is the last header of a record, or none', () => {
    const ours = { key: PROVENANCE_HEADER, value: Buffer.from('1|a>b|t|0|1') };
    assert.equal(lastProvenanceHeader([{ key: 'x', value: null }, ours]), ours);
    assert.equal(lastProvenanceHeader([ours, { key: 'x', value: null }]), undefined);
    assert.equal(lastProvenanceHeader([{ key: PROVENANCE_HEADER, value: null }]), undefined);
    assert.equal(lastProvenanceHeader([]), undefined);
  });
});
