import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  connectOffsetsPartition,
  decodeCheckpointOffsetKey,
  decodeConnectOffsetKey,
  decodeConnectOffsetValue,
  decodeHeartbeatOffsetKey,
  decodeSourceOffsetKey,
  encodeCheckpointOffsetKey,
  encodeConnectOffsetValue,
  encodeHeartbeatOffsetKey,
  encodeSourceOffsetKey,
  jsonString,
} from './connect-offsets';
import { RecordFormatError } from './record-format-error';

const hex = (b: Buffer) => b.toString('hex');
const text = (s: string) => Buffer.from(s, 'utf8');

// [source alias, topic, partition, key hex, partition of a 25-partition offsets topic].
// From Kafka 4.3.1's own classes: MirrorSourceTask.convertRecord(...).sourcePartition() written by
// Connect's OffsetStorageWriter through JsonConverter(schemas.enable=false), then
// Utils.toPositive(Utils.murmur2(key)) % 25. The aliases cover Jackson's escaping rules.
const SOURCE_KEYS: readonly (readonly [string, string, number, string, number])[] = [
  [
    'A',
    'orders',
    0,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a2241222c22706172746974696f6e223a302c22746f706963223a226f7264657273227d5d',
    3,
  ],
  [
    'A',
    'my_topic.with-dots',
    24,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a2241222c22706172746974696f6e223a32342c22746f706963223a226d795f746f7069632e776974682d646f7473227d5d',
    2,
  ],
  [
    'A',
    't',
    2147483647,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a2241222c22706172746974696f6e223a323134373438333634372c22746f706963223a2274227d5d',
    7,
  ],
  [
    'us-west',
    'orders',
    0,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a2275732d77657374222c22706172746974696f6e223a302c22746f706963223a226f7264657273227d5d',
    7,
  ],
  [
    'us-west',
    'my_topic.with-dots',
    24,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a2275732d77657374222c22706172746974696f6e223a32342c22746f706963223a226d795f746f7069632e776974682d646f7473227d5d',
    19,
  ],
  [
    'us-west',
    't',
    2147483647,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a2275732d77657374222c22706172746974696f6e223a323134373438333634372c22746f706963223a2274227d5d',
    3,
  ],
  [
    'B- ._~:/?#[]@!$&\'()*+;="<>%{}|\\^`618',
    'orders',
    0,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22422d202e5f7e3a2f3f235b5d402124262728292a2b3b3d5c223c3e257b7d7c5c5c5e60363138222c22706172746974696f6e223a302c22746f706963223a226f7264657273227d5d',
    2,
  ],
  [
    'B- ._~:/?#[]@!$&\'()*+;="<>%{}|\\^`618',
    'my_topic.with-dots',
    24,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22422d202e5f7e3a2f3f235b5d402124262728292a2b3b3d5c223c3e257b7d7c5c5c5e60363138222c22706172746974696f6e223a32342c22746f706963223a226d795f746f7069632e776974682d646f7473227d5d',
    4,
  ],
  [
    'B- ._~:/?#[]@!$&\'()*+;="<>%{}|\\^`618',
    't',
    2147483647,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22422d202e5f7e3a2f3f235b5d402124262728292a2b3b3d5c223c3e257b7d7c5c5c5e60363138222c22706172746974696f6e223a323134373438333634372c22746f706963223a2274227d5d',
    19,
  ],
  [
    'tab\there\nnl\u0001\u001f\u007f\u0080',
    'orders',
    0,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a227461625c74686572655c6e6e6c5c75303030315c75303031467fc280222c22706172746974696f6e223a302c22746f706963223a226f7264657273227d5d',
    24,
  ],
  [
    'tab\there\nnl\u0001\u001f\u007f\u0080',
    'my_topic.with-dots',
    24,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a227461625c74686572655c6e6e6c5c75303030315c75303031467fc280222c22706172746974696f6e223a32342c22746f706963223a226d795f746f7069632e776974682d646f7473227d5d',
    23,
  ],
  [
    'tab\there\nnl\u0001\u001f\u007f\u0080',
    't',
    2147483647,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a227461625c74686572655c6e6e6c5c75303030315c75303031467fc280222c22706172746974696f6e223a323134373438333634372c22746f706963223a2274227d5d',
    13,
  ],
  [
    '\u00fc\ud83d\ude00',
    'orders',
    0,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22c3bc5c75443833445c7544453030222c22706172746974696f6e223a302c22746f706963223a226f7264657273227d5d',
    5,
  ],
  [
    '\u00fc\ud83d\ude00',
    'my_topic.with-dots',
    24,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22c3bc5c75443833445c7544453030222c22706172746974696f6e223a32342c22746f706963223a226d795f746f7069632e776974682d646f7473227d5d',
    23,
  ],
  [
    '\u00fc\ud83d\ude00',
    't',
    2147483647,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22c3bc5c75443833445c7544453030222c22706172746974696f6e223a323134373438333634372c22746f706963223a2274227d5d',
    8,
  ],
  [
    '\u2028\u2029',
    'orders',
    0,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22e280a8e280a9222c22706172746974696f6e223a302c22746f706963223a226f7264657273227d5d',
    4,
  ],
  [
    '\u2028\u2029',
    'my_topic.with-dots',
    24,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22e280a8e280a9222c22706172746974696f6e223a32342c22746f706963223a226d795f746f7069632e776974682d646f7473227d5d',
    0,
  ],
  [
    '\u2028\u2029',
    't',
    2147483647,
    '5b224d6972726f72536f75726365436f6e6e6563746f72222c7b22636c7573746572223a22e280a8e280a9222c22706172746974696f6e223a323134373438333634372c22746f706963223a2274227d5d',
    2,
  ],
];

describe('Connect source offsets (mm2-offsets.<source>.internal)', () => {
  it('writes the MirrorSourceConnector key as Connect writes it', () => {
    const key = encodeSourceOffsetKey({ sourceClusterAlias: 'A', topic: 'orders', partition: 0 });
    assert.equal(key.toString('utf8'), '["MirrorSourceConnector",{"cluster":"A","partition":0,"topic":"orders"}]');
  });

  for (const [alias, topic, partition, keyHex, p25] of SOURCE_KEYS) {
    it(`writes the exact key bytes and partition for ${JSON.stringify(alias)} ${topic}-${partition}`, () => {
      const key = encodeSourceOffsetKey({ sourceClusterAlias: alias, topic, partition });
      assert.equal(hex(key), keyHex);
      assert.equal(connectOffsetsPartition(key), p25);
      assert.deepEqual(decodeSourceOffsetKey(key), { connector: 'MirrorSourceConnector', sourceClusterAlias: alias, topic, partition });
    });
  }

  it('writes the checkpoint and heartbeat connector keys like Kafka 4.3.1', () => {
    // MirrorCheckpointTask.checkpointRecord(...) and Heartbeat.connectPartition() through Connect's writer.
    const cp = encodeCheckpointOffsetKey({ consumerGroupId: 'g1', topic: 'A.orders', partition: 0 });
    assert.equal(cp.toString('utf8'), '["MirrorCheckpointConnector",{"partition":0,"topic":"A.orders","group":"g1"}]');
    assert.equal(connectOffsetsPartition(cp), 16);
    const quoted = encodeCheckpointOffsetKey({ consumerGroupId: 'group "quoted" \\ ü', topic: 'A.orders', partition: 0 });
    assert.equal(
      hex(quoted),
      '5b224d6972726f72436865636b706f696e74436f6e6e6563746f72222c7b22706172746974696f6e223a302c22746f706963223a22412e6f7264657273222c2267726f7570223a2267726f7570205c2271756f7465645c22205c5c20c3bc227d5d',
    );
    assert.equal(connectOffsetsPartition(quoted), 2);
    const hb = encodeHeartbeatOffsetKey({ sourceClusterAlias: 'A', targetClusterAlias: 'B' });
    assert.equal(hb.toString('utf8'), '["MirrorHeartbeatConnector",{"sourceClusterAlias":"A","targetClusterAlias":"B"}]');
    assert.equal(connectOffsetsPartition(hb), 0);
    assert.deepEqual(decodeCheckpointOffsetKey(quoted), {
      connector: 'MirrorCheckpointConnector',
      consumerGroupId: 'group "quoted" \\ ü',
      topic: 'A.orders',
      partition: 0,
    });
    assert.deepEqual(decodeHeartbeatOffsetKey(hb), { connector: 'MirrorHeartbeatConnector', sourceClusterAlias: 'A', targetClusterAlias: 'B' });
  });

  it('writes values like JsonConverter', () => {
    assert.equal(encodeConnectOffsetValue(41).toString('utf8'), '{"offset":41}');
    assert.equal(encodeConnectOffsetValue(0).toString('utf8'), '{"offset":0}');
    assert.equal(encodeConnectOffsetValue(9223372036854775807n).toString('utf8'), '{"offset":9223372036854775807}');
    assert.throws(() => encodeConnectOffsetValue(2 ** 53), RecordFormatError);
  });

  it('escapes strings exactly as Jackson does (Kafka 4.3.1 JsonConverter vectors)', () => {
    const cases: readonly (readonly [string, string])[] = [
      ['\b\f\r\t\n', '"\\b\\f\\r\\t\\n"'],
      ['\u0000\u0007\u000b\u001b\u001f', '"\\u0000\\u0007\\u000B\\u001B\\u001F"'],
      ["/<>&'=", '"/<>&\'="'],
      ['\u007f\u0080\u00ff\u0100\u07ff\u0800\uffff', '"\u007f\u0080\u00ff\u0100\u07ff\u0800\uffff"'],
      ['\u2028\u2029\ufeff', '"\u2028\u2029\ufeff"'],
      ['\ud83d\ude00', '"\\uD83D\\uDE00"'],
      ['x\ud800y', '"x\\uD800y"'],
      ['x\udc00y', '"x\\uDC00y"'],
    ];
    for (const [input, expected] of cases) assert.equal(jsonString(input), expected);
    // Byte level: U+2028 stays raw UTF-8 (e2 80 a8), as in Java's output.
    assert.equal(hex(text(jsonString('\u2028'))), '22e280a822');
  });

  it('reads keys written with any field order and whitespace', () => {
    const key = text(' [ "MirrorSourceConnector" , { "topic" : "orders", "partition" : 7, "cluster" : "A" } ] ');
    assert.deepEqual(decodeSourceOffsetKey(key), { connector: 'MirrorSourceConnector', sourceClusterAlias: 'A', topic: 'orders', partition: 7 });
    assert.deepEqual(decodeConnectOffsetKey(text('["X",null]')), { connector: 'X', partition: null });
  });

  it('reads values, with null bytes and JSON null as tombstones', () => {
    assert.equal(decodeConnectOffsetValue(text('{"offset":41}')), 41);
    assert.equal(decodeConnectOffsetValue(text('{ "offset" : 41 }')), 41);
    assert.equal(decodeConnectOffsetValue(null), null);
    assert.equal(decodeConnectOffsetValue(text('null')), null);
  });

  it('rejects malformed keys and values with RecordFormatError', () => {
    const bad = (fn: () => unknown, message: RegExp) => assert.throws(fn, (e: unknown) => e instanceof RecordFormatError && message.test(e.message));
    bad(() => decodeConnectOffsetKey(text('not json')), /not JSON/);
    bad(() => decodeConnectOffsetKey(text('{"a":1}')), /JSON array/);
    bad(() => decodeConnectOffsetKey(text('["a"]')), /JSON array/);
    bad(() => decodeConnectOffsetKey(text('[1,{}]')), /connector name/);
    bad(() => decodeConnectOffsetKey(text('["a",[1]]')), /not a JSON object/);
    bad(() => decodeConnectOffsetKey(null), /null/);
    bad(() => decodeSourceOffsetKey(text('["MirrorSourceConnector",{"cluster":"A","topic":"t"}]')), /"partition" is missing/);
    bad(() => decodeSourceOffsetKey(text('["MirrorSourceConnector",{"cluster":"A","topic":"t","partition":-1}]')), /"partition" is -1/);
    bad(() => decodeSourceOffsetKey(text('["MirrorSourceConnector",{"cluster":1,"topic":"t","partition":0}]')), /"cluster" is 1/);
    bad(() => decodeSourceOffsetKey(text('["MirrorSourceConnector",null]')), /"cluster" is missing/);
    bad(() => decodeConnectOffsetValue(text('{"offset":"41"}')), /"offset" is "41"/);
    bad(() => decodeConnectOffsetValue(text('{"offset":41.5}')), /not a safe integer/);
    bad(() => decodeConnectOffsetValue(text('{"offset":9223372036854775807}')), /not a safe integer/);
    bad(() => decodeConnectOffsetValue(text('{}')), /"offset" is missing/);
    bad(() => decodeConnectOffsetValue(text('[41]')), /not a JSON object/);
    bad(() => encodeSourceOffsetKey({ sourceClusterAlias: 'A', topic: 't', partition: -1 }), /partition -1/);
  });
});
