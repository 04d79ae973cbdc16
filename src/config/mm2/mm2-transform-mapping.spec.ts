import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { builtInTransforms, PluginRegistry, validateTransformSteps } from '../../plugins';
import { convertMm2Properties } from './convert-mm2-properties';
import { parseMm2Properties, type ParsedPipeline } from './parse-mm2-properties';

const BASE = [
  'clusters = primary, backup',
  'primary.bootstrap.servers = 127.0.0.1:9092',
  'backup.bootstrap.servers = 127.0.0.1:9093',
  'primary->backup.enabled = true',
];

const registry = new PluginRegistry(builtInTransforms);
const parse = (lines: readonly string[]): ParsedPipeline =>
  parseMm2Properties([...BASE, ...lines].join('\n'), 'mm2.properties', { env: {}, validateTransforms: (steps) => validateTransformSteps(steps, registry) });

function problems(lines: readonly string[]): string[] {
  try {
    parse(lines);
  } catch (error) {
    if (error instanceof ConfigError) return error.issues.map((issue) => formatConfigIssue(issue));
    throw error;
  }
  assert.fail('expected problems');
}

const steps = (parsed: ParsedPipeline) =>
  parsed.config.flows.find((f) => f.name === 'primary->backup')!.transforms.map((s) => ({ type: s.type, ...s.options }));

describe('mm2.properties transforms and predicates', () => {
  it('maps the SMTs MM2 users write, per flow, in order, onto the built-ins', () => {
    const parsed = parse([
      'primary->backup.transforms = route, stamp, tag, strip, daily',
      'primary->backup.transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter',
      'primary->backup.transforms.route.regex = primary\\\\.(.*)',
      'primary->backup.transforms.route.replacement = dr-$1',
      'primary->backup.transforms.stamp.type = org.apache.kafka.connect.transforms.InsertHeader',
      'primary->backup.transforms.stamp.header = origin',
      'primary->backup.transforms.stamp.value.literal = primary ',
      'primary->backup.transforms.tag.type = InsertHeader',
      'primary->backup.transforms.tag.header = copied',
      'primary->backup.transforms.tag.value.literal =',
      'primary->backup.transforms.strip.type = org.apache.kafka.connect.transforms.DropHeaders',
      'primary->backup.transforms.strip.headers = trace-id, span-id',
      'primary->backup.transforms.daily.type = org.apache.kafka.connect.transforms.TimestampRouter',
      'primary->backup.transforms.daily.timestamp.format = yyyy-MM-dd',
    ]);
    assert.deepEqual(steps(parsed), [
      { type: 'rename_topic', regex: 'primary\\.(.*)', replacement: 'dr-$1' },
      { type: 'insert_header', header: 'origin', value: 'primary' },
      { type: 'insert_header', header: 'copied', value: '' },
      { type: 'drop_headers', headers: ['trace-id', 'span-id'] },
      { type: 'route_by_timestamp', timestamp_format: 'yyyy-MM-dd' },
    ]);
    assert.match(
      parsed.warnings.map((issue) => formatConfigIssue(issue)).join('\n'),
      /mm2\.properties:9:1: primary->backup\.transforms\.stamp\.type: MM2's default header\.converter \(ByteArrayConverter\) fails every record/,
    );
  });

  it('maps a Filter with a predicate (and negate) onto drop with when; a Filter without one drops everything', () => {
    const parsed = parse([
      'transforms = skipInternal, keepOrders',
      'predicates = isInternal, isOrders, isTombstone',
      'primary->backup.transforms.skipInternal.type = org.apache.kafka.connect.transforms.Filter',
      'primary->backup.transforms.skipInternal.predicate = isInternal',
      'primary->backup.transforms.keepOrders.type = org.apache.kafka.connect.transforms.Filter',
      'primary->backup.transforms.keepOrders.predicate = isOrders',
      'primary->backup.transforms.keepOrders.negate = true',
      'primary->backup.predicates.isInternal.type = org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
      'primary->backup.predicates.isInternal.name = internal',
      'primary->backup.predicates.isOrders.type = org.apache.kafka.connect.transforms.predicates.TopicNameMatches',
      'primary->backup.predicates.isOrders.pattern = primary\\\\.orders.*',
      'primary->backup.predicates.isTombstone.type = RecordIsTombstone',
    ]);
    assert.deepEqual(steps(parsed), [
      { type: 'drop', when: { has_header: 'internal' } },
      { type: 'drop', when: { topic_matches: 'primary\\.orders.*' }, negate: true },
    ]);
    const all = parse(['primary->backup.transforms = none', 'primary->backup.transforms.none.type = org.apache.kafka.connect.transforms.Filter']);
    assert.deepEqual(steps(all), [{ type: 'drop' }]);
    const tombstones = parse([
      'primary->backup.transforms = t',
      'primary->backup.predicates = dead',
      'primary->backup.transforms.t.type = Filter',
      'primary->backup.transforms.t.predicate = dead',
      'primary->backup.predicates.dead.type = org.apache.kafka.connect.transforms.predicates.RecordIsTombstone',
    ]);
    assert.deepEqual(steps(tombstones), [{ type: 'drop', when: { is_tombstone: true } }]);
  });

  it('maps field-level SMTs ($Key and $Value) with the converters they need, per flow or top level', () => {
    const parsed = parse([
      'value.converter = org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable = false',
      'primary->backup.key.converter = org.apache.kafka.connect.storage.StringConverter',
      'primary->backup.transforms = origin, trim, types, wrap',
      'primary->backup.transforms.origin.type = org.apache.kafka.connect.transforms.InsertField$Value',
      'primary->backup.transforms.origin.static.field = origin',
      'primary->backup.transforms.origin.static.value = dc1',
      'primary->backup.transforms.origin.topic.field = topic',
      'primary->backup.transforms.trim.type = org.apache.kafka.connect.transforms.ReplaceField$Value',
      'primary->backup.transforms.trim.exclude = secret, internal',
      'primary->backup.transforms.trim.renames = id:order_id',
      'primary->backup.transforms.types.type = org.apache.kafka.connect.transforms.Cast$Value',
      'primary->backup.transforms.types.spec = amount:float64, qty:int32',
      'primary->backup.transforms.wrap.type = org.apache.kafka.connect.transforms.HoistField$Key',
      'primary->backup.transforms.wrap.field = id',
    ]);
    assert.deepEqual(parsed.warnings, []);
    const flow = parsed.config.flows.find((f) => f.name === 'primary->backup')!;
    assert.deepEqual(flow.converter, { key: 'string', value: 'json' });
    assert.deepEqual(steps(parsed), [
      { type: 'insert_field', on: 'value', static_field: 'origin', static_value: 'dc1', topic_field: 'topic' },
      { type: 'replace_field', on: 'value', exclude: ['secret', 'internal'], renames: ['id:order_id'] },
      { type: 'cast', on: 'value', spec: ['amount:float64', 'qty:int32'] },
      { type: 'hoist_field', on: 'key', field: 'id' },
    ]);
  });

  it("maps ExtractField's field.syntax.version (KIP-821), and reports a path Connect would refuse at its line", () => {
    const lines = [
      'primary->backup.value.converter = org.apache.kafka.connect.json.JsonConverter',
      'primary->backup.transforms = pick',
      'primary->backup.transforms.pick.type = org.apache.kafka.connect.transforms.ExtractField$Value',
      'primary->backup.transforms.pick.field.syntax.version = v2',
    ];
    assert.deepEqual(steps(parse([...lines, 'primary->backup.transforms.pick.field = order.`line.item`'])), [
      { type: 'extract_field', on: 'value', field: 'order.`line.item`', field_syntax_version: 'v2' },
    ]);
    assert.deepEqual(problems([...lines, 'primary->backup.transforms.pick.field = `order.id']), [
      'mm2.properties:9:41: primary->backup.transforms.pick.field: Incomplete backtick pair in path: [`order.id], consider adding a backslash before backtick at position 0 to escape it',
    ]);
  });

  it("refuses converters mirrorflow does not have, and warns that MM2 fails InsertField's offset.field", () => {
    assert.deepEqual(problems(['primary->backup.key.converter = com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter']), [
      "mm2.properties:5:33: primary->backup.key.converter: names Java code, which mirrorflow cannot run: com.amazonaws.services.schemaregistry.kafkaconnect.AWSKafkaAvroConverter is not a converter mirrorflow has\n  hint: mirrorflow has ByteArrayConverter (bytes, the default), StringConverter, JsonConverter (schemas.enable true or false) and Confluent's AvroConverter, JsonSchemaConverter and ProtobufConverter",
    ]);
    const parsed = parse([
      'value.converter = org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable = false',
      'primary->backup.transforms = at',
      'primary->backup.transforms.at.type = org.apache.kafka.connect.transforms.InsertField$Value',
      'primary->backup.transforms.at.offset.field = offset',
    ]);
    assert.match(parsed.warnings.map((issue) => formatConfigIssue(issue)).join('\n'), /MM2 fails every record this InsertField sees/);
  });

  it("maps Confluent's AvroConverter to the avro converter with the flow's schema_registry from schema.registry.url", () => {
    const parsed = parse([
      'value.converter = io.confluent.connect.avro.AvroConverter',
      'value.converter.schema.registry.url = http://127.0.0.1:8081',
      'value.converter.basic.auth.credentials.source = USER_INFO',
      'value.converter.basic.auth.user.info = mirror:s3cret',
      'primary->backup.transforms = tag',
      'primary->backup.transforms.tag.type = org.apache.kafka.connect.transforms.InsertField$Value',
      'primary->backup.transforms.tag.static.field = origin',
      'primary->backup.transforms.tag.static.value = eu',
    ]);
    const flow = parsed.config.flows.find((f) => f.name === 'primary->backup')!;
    assert.deepEqual(flow.converter, { key: 'bytes', value: 'avro' });
    const registry = { url: 'http://127.0.0.1:8081', basic_auth: { username: 'mirror', password: 's3cret' }, timeout_ms: 10_000 };
    assert.deepEqual(flow.schema_registry, { source: registry, target: registry, subjects: 'topic_name', on: ['value'], strict: false });
    assert.deepEqual(problems(['primary->backup.value.converter = io.confluent.connect.avro.AvroConverter']), [
      'mm2.properties:5:35: primary->backup.value.converter: AvroConverter needs value.converter.schema.registry.url: it reads the writer schemas there and registers what it writes\n  hint: set value.converter.schema.registry.url = http://registry:8081',
    ]);
  });

  it("maps Confluent's JsonSchemaConverter to the json_schema converter with the flow's schema_registry, a key and a value sharing one", () => {
    const parsed = parse([
      'key.converter = io.confluent.connect.json.JsonSchemaConverter',
      'key.converter.schema.registry.url = http://127.0.0.1:8081',
      'value.converter = io.confluent.connect.json.JsonSchemaConverter',
      'value.converter.schema.registry.url = http://127.0.0.1:8081',
      'primary->backup.transforms = tag',
      'primary->backup.transforms.tag.type = org.apache.kafka.connect.transforms.InsertField$Value',
      'primary->backup.transforms.tag.static.field = origin',
      'primary->backup.transforms.tag.static.value = eu',
    ]);
    const flow = parsed.config.flows.find((f) => f.name === 'primary->backup')!;
    assert.deepEqual(flow.converter, { key: 'json_schema', value: 'json_schema' });
    const registry = { url: 'http://127.0.0.1:8081', timeout_ms: 10_000 };
    assert.deepEqual(flow.schema_registry, { source: registry, target: registry, subjects: 'topic_name', on: ['key', 'value'], strict: false });
    assert.deepEqual(problems(['primary->backup.value.converter = io.confluent.connect.json.JsonSchemaConverter']), [
      'mm2.properties:5:35: primary->backup.value.converter: JsonSchemaConverter needs value.converter.schema.registry.url: it reads the writer schemas there and registers what it writes\n  hint: set value.converter.schema.registry.url = http://registry:8081',
    ]);
  });

  it("maps Confluent's ProtobufConverter to the protobuf converter with the flow's schema_registry from schema.registry.url", () => {
    const parsed = parse([
      'value.converter = io.confluent.connect.protobuf.ProtobufConverter',
      'value.converter.schema.registry.url = http://127.0.0.1:8081',
      'primary->backup.transforms = tag',
      'primary->backup.transforms.tag.type = org.apache.kafka.connect.transforms.InsertField$Value',
      'primary->backup.transforms.tag.static.field = origin',
      'primary->backup.transforms.tag.static.value = eu',
    ]);
    const flow = parsed.config.flows.find((f) => f.name === 'primary->backup')!;
    assert.deepEqual(flow.converter, { key: 'bytes', value: 'protobuf' });
    const registry = { url: 'http://127.0.0.1:8081', timeout_ms: 10_000 };
    assert.deepEqual(flow.schema_registry, { source: registry, target: registry, subjects: 'topic_name', on: ['value'], strict: false });
    assert.deepEqual(problems(['primary->backup.value.converter = io.confluent.connect.protobuf.ProtobufConverter']), [
      'mm2.properties:5:35: primary->backup.value.converter: ProtobufConverter needs value.converter.schema.registry.url: it reads the writer schemas there and registers what it writes\n  hint: set value.converter.schema.registry.url = http://registry:8081',
    ]);
  });

  it('refuses a class without a built-in, naming the alias, the class, the line and what to use instead', () => {
    assert.deepEqual(
      problems([
        'primary->backup.transforms = addField, flat, custom, rout',
        'primary->backup.transforms.addField.type = org.apache.kafka.connect.transforms.InsertField$Value',
        'primary->backup.transforms.flat.type = org.apache.kafka.connect.transforms.ValueToKey$Value',
        'primary->backup.transforms.custom.type = com.acme.kafka.MaskPii',
        'primary->backup.transforms.rout.type = org.apache.kafka.connect.transforms.RegexRoutr',
      ]),
      [
        `mm2.properties:6:44: primary->backup.transforms.addField.type: Transform "insert_field" (Connect's InsertField) reads fields of the record's value, which the flow copies as bytes: it needs a converter\n  hint: set flows[0].converter.value to json (plain JSON), json_envelope (JSON in Connect's {schema, payload} envelope) or string; in mm2.properties, value.converter = org.apache.kafka.connect.json.JsonConverter (with value.converter.schemas.enable = false for plain JSON)`,
        'mm2.properties:7:40: primary->backup.transforms.flat.type: transform "flat" is org.apache.kafka.connect.transforms.ValueToKey$Value, which mirrorflow has no built-in for\n  hint: did you mean ValueToKey? built in: RegexRouter (rename_topic), TimestampRouter (route_by_timestamp), InsertHeader (insert_header), DropHeaders (drop_headers), Filter (drop), and with a converter InsertField, ReplaceField, Cast, MaskField, HoistField, ExtractField, Flatten, HeaderFrom, TimestampConverter, SetSchemaMetadata ($Key and $Value) and ValueToKey',
        'mm2.properties:8:42: primary->backup.transforms.custom.type: transform "custom" is com.acme.kafka.MaskPii, Java code, which mirrorflow cannot run\n  hint: built in: RegexRouter (rename_topic), TimestampRouter (route_by_timestamp), InsertHeader (insert_header), DropHeaders (drop_headers), Filter (drop), and with a converter InsertField, ReplaceField, Cast, MaskField, HoistField, ExtractField, Flatten, HeaderFrom, TimestampConverter, SetSchemaMetadata ($Key and $Value) and ValueToKey; or write a transform plugin (plugins/)',
        'mm2.properties:9:40: primary->backup.transforms.rout.type: transform "rout" is org.apache.kafka.connect.transforms.RegexRoutr, which mirrorflow has no built-in for\n  hint: did you mean RegexRouter? built in: RegexRouter (rename_topic), TimestampRouter (route_by_timestamp), InsertHeader (insert_header), DropHeaders (drop_headers), Filter (drop), and with a converter InsertField, ReplaceField, Cast, MaskField, HoistField, ExtractField, Flatten, HeaderFrom, TimestampConverter, SetSchemaMetadata ($Key and $Value) and ValueToKey',
      ],
    );
  });

  it("reports options as Connect's ConfigDef would: missing required ones, and refuses unknown ones", () => {
    assert.deepEqual(
      problems([
        'primary->backup.transforms = route, strip',
        'primary->backup.transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter',
        'primary->backup.transforms.route.replacment = dr-$1',
        'primary->backup.transforms.strip.type = org.apache.kafka.connect.transforms.DropHeaders',
      ]),
      [
        'mm2.properties:6:1: primary->backup.transforms.route.type: Missing required configuration "regex" which has no default value.\n  hint: set primary->backup.transforms.route.regex (RegexRouter)',
        'mm2.properties:6:1: primary->backup.transforms.route.type: Missing required configuration "replacement" which has no default value.\n  hint: set primary->backup.transforms.route.replacement (RegexRouter)',
        'mm2.properties:7:1: primary->backup.transforms.route.replacment: unknown option "replacment" for RegexRouter\n  hint: did you mean "primary->backup.transforms.route.replacement"?',
        'mm2.properties:8:1: primary->backup.transforms.strip.type: Missing required configuration "headers" which has no default value.\n  hint: set primary->backup.transforms.strip.headers (DropHeaders)',
      ],
    );
  });

  it('checks the built-in options too: a regex Java would refuse, a replacement naming a missing group', () => {
    const lines = problems([
      'primary->backup.transforms = route',
      'primary->backup.transforms.route.type = RegexRouter',
      'primary->backup.transforms.route.regex = primary\\\\.(.*',
      'primary->backup.transforms.route.replacement = $2',
    ]);
    assert.equal(lines.length, 1);
    assert.match(lines[0]!, /^mm2\.properties:7:42: primary->backup\.transforms\.route\.regex: Invalid regex: .*$/);
  });

  it('reads a top-level transforms list but, as MM2, not top-level transforms.<alias>.* keys', () => {
    const lines = problems(['transforms = route', 'transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter']);
    assert.deepEqual(lines, [
      'mm2.properties:5:14: transforms: Missing required configuration "transforms.route.type" which has no default value.\n  hint: MM2 drops a top-level transforms.route.type (only keys its connectors define reach a flow): write it per flow, as <source>-><target>.transforms.route.type',
    ]);
  });

  it('refuses what Connect refuses: duplicate aliases, negate without a predicate, an unlisted predicate; warns about keys it ignores', () => {
    assert.deepEqual(problems(['primary->backup.transforms = a, a']), [
      'mm2.properties:5:30: primary->backup.transforms: Invalid value a, a for configuration primary->backup.transforms: Duplicate alias provided.\n  hint: list each transformation once',
    ]);
    assert.deepEqual(
      problems([
        'primary->backup.transforms = f, g',
        'primary->backup.transforms.f.type = Filter',
        'primary->backup.transforms.f.negate = true',
        'primary->backup.transforms.g.type = Filter',
        'primary->backup.transforms.g.predicate = p',
      ]),
      [
        "mm2.properties:7:1: primary->backup.transforms.f.negate: Config 'transforms.f.negate' was provided but there is no config 'transforms.f.predicate' defining a predicate to be negated.",
        'mm2.properties:9:42: primary->backup.transforms.g.predicate: names predicate "p", which is not in predicates\n  hint: add it: predicates = p',
      ],
    );
    const parsed = parse(['primary->backup.transforms.old.type = RegexRouter', 'backup->primary.transforms = x']);
    assert.deepEqual(
      parsed.warnings.map((issue) => formatConfigIssue(issue)),
      [
        'mm2.properties:5:1: primary->backup.transforms.old.type: has no effect: "old" is not in transforms\n  hint: list it in transforms, or remove the key',
        'mm2.properties:6:1: backup->primary.transforms: has no effect: this flow only emits heartbeats (it is not enabled), and mirrorflow transforms replicated records only',
      ],
    );
  });

  it("maps a predicate (and negate) on any SMT onto the step's when, as on a Filter", () => {
    const parsed = parse([
      'value.converter = org.apache.kafka.connect.json.JsonConverter',
      'value.converter.schemas.enable = false',
      'key.converter = org.apache.kafka.connect.json.JsonConverter',
      'key.converter.schemas.enable = false',
      'primary->backup.transforms = route, tag, rekey',
      'primary->backup.predicates = orders, tagged, dead',
      'primary->backup.transforms.route.type = RegexRouter',
      'primary->backup.transforms.route.regex = primary\\\\.(.*)',
      'primary->backup.transforms.route.replacement = dr.$1',
      'primary->backup.transforms.route.predicate = orders',
      'primary->backup.transforms.tag.type = org.apache.kafka.connect.transforms.InsertHeader',
      'primary->backup.transforms.tag.header = origin',
      'primary->backup.transforms.tag.value.literal = dc1',
      'primary->backup.transforms.tag.predicate = tagged',
      'primary->backup.transforms.tag.negate = true',
      'primary->backup.transforms.rekey.type = org.apache.kafka.connect.transforms.ValueToKey',
      'primary->backup.transforms.rekey.fields = id',
      'primary->backup.transforms.rekey.predicate = dead',
      'primary->backup.transforms.rekey.negate = true',
      'primary->backup.predicates.orders.type = TopicNameMatches',
      'primary->backup.predicates.orders.pattern = primary\\\\.orders',
      'primary->backup.predicates.tagged.type = HasHeaderKey',
      'primary->backup.predicates.tagged.name = origin',
      'primary->backup.predicates.dead.type = RecordIsTombstone',
    ]);
    assert.deepEqual(steps(parsed), [
      { type: 'rename_topic', regex: 'primary\\.(.*)', replacement: 'dr.$1', when: { topic_matches: 'primary\\.orders' } },
      { type: 'insert_header', header: 'origin', value: 'dc1', when: { has_header: 'origin' }, negate: true },
      { type: 'value_to_key', fields: ['id'], when: { is_tombstone: true }, negate: true },
    ]);
  });

  it('reads replace.null.with.default where Connect 4.3.1 defines it: true (its default) is what the built-ins do, false is refused', () => {
    const smts = [
      'Cast$Value',
      'ExtractField$Value',
      'HeaderFrom$Value',
      'InsertField$Value',
      'MaskField$Value',
      'ReplaceField$Value',
      'SetSchemaMetadata$Value',
      'TimestampConverter$Value',
      'ValueToKey',
    ];
    const required: Readonly<Record<string, readonly string[]>> = {
      Cast$Value: ['spec = amount:float64'],
      ExtractField$Value: ['field = id'],
      HeaderFrom$Value: ['fields = tag', 'headers = tag', 'operation = copy'],
      InsertField$Value: ['static.field = f', 'static.value = v'],
      MaskField$Value: ['fields = card'],
      SetSchemaMetadata$Value: ['schema.name = x.Y'],
      TimestampConverter$Value: ['target.type = unix'],
      ValueToKey: ['fields = id'],
    };
    const lines = (replace: string) => [
      'key.converter = org.apache.kafka.connect.json.JsonConverter',
      'value.converter = org.apache.kafka.connect.json.JsonConverter',
      `primary->backup.transforms = ${smts.map((_, i) => `t${i}`).join(', ')}`,
      ...smts.flatMap((smt, i) => [
        `primary->backup.transforms.t${i}.type = org.apache.kafka.connect.transforms.${smt}`,
        ...(required[smt] ?? []).map((option) => `primary->backup.transforms.t${i}.${option}`),
        `primary->backup.transforms.t${i}.replace.null.with.default = ${replace}`,
      ]),
    ];
    const parsed = parse(lines(' TRUE '));
    assert.deepEqual(
      steps(parsed).map((s) => s.type),
      ['cast', 'extract_field', 'header_from', 'insert_field', 'mask_field', 'replace_field', 'set_schema_metadata', 'timestamp_converter', 'value_to_key'],
    );
    assert.ok(steps(parsed).every((s) => !Object.keys(s).some((k) => k.includes('null'))));
    const refused = problems(lines('false'));
    assert.equal(refused.length, smts.length);
    assert.match(
      refused[1]!,
      /^mm2\.properties:\d+:\d+: primary->backup\.transforms\.t1\.replace\.null\.with\.default: is not supported: mirrorflow's extract_field reads a null struct field that has a default as its default, as ExtractField\$Value does with replace\.null\.with\.default = true \(Connect's default\)\n {2}hint: remove the key; /,
    );
    assert.deepEqual(
      problems([
        'value.converter = org.apache.kafka.connect.json.JsonConverter',
        'primary->backup.transforms = h',
        'primary->backup.transforms.h.type = HoistField$Value',
        'primary->backup.transforms.h.field = f',
        'primary->backup.transforms.h.replace.null.with.default = true',
      ]),
      [
        'mm2.properties:9:1: primary->backup.transforms.h.replace.null.with.default: unknown option "replace.null.with.default" for HoistField$Value\n  hint: HoistField$Value reads: field',
      ],
    );
    assert.match(problems([...lines('yes')])[0]!, /must be true or false/);
  });

  it('convert writes the mapped transforms into the YAML, each with its key', () => {
    const { yaml } = convertMm2Properties(
      [
        ...BASE,
        'primary->backup.transforms = route, drop',
        'primary->backup.predicates = internal',
        'primary->backup.transforms.route.type = org.apache.kafka.connect.transforms.RegexRouter',
        'primary->backup.transforms.route.regex = primary\\\\.(.*)',
        'primary->backup.transforms.route.replacement = dr-$1',
        'primary->backup.transforms.drop.type = org.apache.kafka.connect.transforms.Filter',
        'primary->backup.transforms.drop.predicate = internal',
        'primary->backup.predicates.internal.type = org.apache.kafka.connect.transforms.predicates.HasHeaderKey',
        'primary->backup.predicates.internal.name = internal',
      ].join('\n'),
      'mm2.properties',
      { env: {} },
    );
    const start = yaml.indexOf('    transforms:\n');
    assert.ok(start > 0, yaml);
    assert.equal(
      yaml.slice(start, yaml.indexOf('  # backup->primary')),
      [
        '    transforms:',
        '      - type: rename_topic # primary->backup.transforms.route.type (line 7)',
        '        regex: primary\\.(.*) # primary->backup.transforms.route.regex (line 8)',
        '        replacement: dr-$1 # primary->backup.transforms.route.replacement (line 9)',
        '      - type: drop # primary->backup.transforms.drop.type (line 10)',
        '        when:',
        '          has_header: internal # primary->backup.predicates.internal.name (line 13)',
        '',
      ].join('\n'),
    );
  });
});
