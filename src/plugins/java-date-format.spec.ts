import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { JavaDateFormat } from './java-date-format';

const at = (iso: string): number => Date.parse(iso);
const format = (pattern: string, iso: string): string => JavaDateFormat.parse(pattern).format(at(iso));

describe('JavaDateFormat', () => {
  it("formats TimestampRouter's default yyyyMMdd in UTC", () => {
    assert.equal(format('yyyyMMdd', '2024-03-07T23:59:59.999Z'), '20240307');
    assert.equal(format('yyyyMMdd', '2024-03-08T00:00:00.000Z'), '20240308');
    // Kafka's "no timestamp" (-1) is a millisecond before the epoch, as Java formats it.
    assert.equal(JavaDateFormat.parse('yyyyMMdd').format(-1), '19691231');
  });

  it('pads numbers to the letter count and keeps non-letters literal', () => {
    assert.equal(format('yyyy-MM-dd HH:mm:ss.SSS', '2024-01-02T03:04:05.006Z'), '2024-01-02 03:04:05.006');
    assert.equal(format('y-M-d H:m:s.S', '2024-01-02T03:04:05.006Z'), '2024-1-2 3:4:5.6');
    assert.equal(format('yy', '2009-06-01T00:00:00Z'), '09');
    assert.equal(format('yyyyyy', '2024-06-01T00:00:00Z'), '002024');
    assert.equal(format('SSSS', '2024-06-01T00:00:00.123Z'), '0123');
  });

  it('writes month names for MMM and MMMM', () => {
    assert.equal(format('dd-MMM-yyyy', '2024-09-30T12:00:00Z'), '30-Sep-2024');
    assert.equal(format('MMMM', '2024-02-01T00:00:00Z'), 'February');
  });

  it("reads 'quoted text' as literal, '' as a quote", () => {
    assert.equal(format("yyyy'W'MM", '2024-05-01T00:00:00Z'), '2024W05');
    assert.equal(format("'day'-dd", '2024-05-01T00:00:00Z'), 'day-01');
    assert.equal(format("HH''mm", '2024-05-01T10:20:00Z'), "10'20");
    assert.equal(format("'it''s' yyyy", '2024-05-01T00:00:00Z'), "it's 2024");
  });

  it('refuses what Java refuses, and Java letters not supported here, when parsing', () => {
    assert.throws(() => JavaDateFormat.parse("yyyy'W"), /unterminated quote at position 4/);
    assert.throws(() => JavaDateFormat.parse('yyyyb'), /illegal pattern character 'b'/);
    assert.throws(() => JavaDateFormat.parse('EEE yyyy'), /pattern letter 'E' is not supported/);
    assert.throws(() => JavaDateFormat.parse('hh a'), /pattern letter 'h' is not supported/);
  });
});
