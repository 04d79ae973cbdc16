/**
 * A flow's Connect SMTs and predicates, as MM2 hands them to its connectors (`transforms`,
 * `transforms.<alias>.type` and options, `.predicate`, `.negate`; `predicates`,
 * `predicates.<alias>.type` and options), as the flow's built-in transforms; a transform's
 * predicate becomes the step's `when` (and `negate`), which every step takes.
 *
 * Only what reaches the flow counts, as in MM2's `connectorBaseConfig`: the flow's own keys
 * (`A->B.transforms.a.type`) and the top-level `transforms` and `predicates` lists; a top-level
 * `transforms.a.type` is dropped by MM2 (no connector defines that name), which the key check
 * warns about. Options are read as Connect's ConfigDef reads them (trimmed; a missing required
 * one is Connect's "Missing required configuration" error); an option Connect does not define
 * is refused rather than ignored. Classes without a built-in are refused with the closest one.
 */
import { didYouMean } from '../../plugins';
import type { PathSegment } from '../config-path';
import type { Mm2Document, Mm2Property, Provenance } from './mm2-document';
import type { Mm2Values } from './mm2-values';

type Props = ReadonlyMap<string, Mm2Property>;

/** What the mapping needs of a flow's mapping (`FlowMappingContext` is one). */
export interface TransformMappingContext {
  readonly values: Mm2Values;
  readonly document: Mm2Document;
  readonly provenance: (prop: Mm2Property) => Provenance;
  /** The file's properties, to tell a top-level key MM2 drops from a missing one. */
  readonly driver: { get(key: string): Mm2Property | undefined };
}

/** One Connect option as it lands in the built-in's options. */
interface OptionSpec {
  readonly option: string;
  readonly required: boolean;
  /** `replace-null`: Connect 3.8+'s `replace.null.with.default`, which sets no option of the built-in. */
  readonly kind?: 'list' | 'int' | 'replace-null';
}

/**
 * `replace.null.with.default` (true by default): whether the SMT reads a struct field that is
 * null as its schema's default (Struct.get) or as null. The built-ins read as with true; false
 * is refused. (JsonConverter, as mirrorflow's json_envelope, already reads a null field with a
 * default as its default, so data read by it never holds such a null.)
 */
const REPLACE_NULL: Readonly<Record<string, OptionSpec>> = {
  'replace.null.with.default': { option: 'replace.null.with.default', required: false, kind: 'replace-null' },
};

interface SmtSpec {
  /** The built-in that does the job. */
  readonly builtIn: string;
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Options the class itself decides (`$Key` / `$Value`: `on`). */
  readonly fixed?: Readonly<Record<string, unknown>>;
}

const TRANSFORMS = 'org.apache.kafka.connect.transforms.';
const PREDICATES = `${TRANSFORMS}predicates.`;

const SMTS: Readonly<Record<string, SmtSpec>> = {
  RegexRouter: {
    builtIn: 'rename_topic',
    options: { regex: { option: 'regex', required: true }, replacement: { option: 'replacement', required: true } },
  },
  TimestampRouter: {
    builtIn: 'route_by_timestamp',
    options: { 'topic.format': { option: 'topic_format', required: false }, 'timestamp.format': { option: 'timestamp_format', required: false } },
  },
  InsertHeader: {
    builtIn: 'insert_header',
    options: { header: { option: 'header', required: true }, 'value.literal': { option: 'value', required: true } },
  },
  DropHeaders: { builtIn: 'drop_headers', options: { headers: { option: 'headers', required: true, kind: 'list' } } },
  Filter: { builtIn: 'drop', options: {} },
  ...keyAndValue('InsertField', 'insert_field', {
    'topic.field': { option: 'topic_field', required: false },
    'partition.field': { option: 'partition_field', required: false },
    'offset.field': { option: 'offset_field', required: false },
    'timestamp.field': { option: 'timestamp_field', required: false },
    'static.field': { option: 'static_field', required: false },
    'static.value': { option: 'static_value', required: false },
    ...REPLACE_NULL,
  }),
  ...keyAndValue('ReplaceField', 'replace_field', {
    exclude: { option: 'exclude', required: false, kind: 'list' },
    include: { option: 'include', required: false, kind: 'list' },
    renames: { option: 'renames', required: false, kind: 'list' },
    ...REPLACE_NULL,
  }),
  ...keyAndValue('Cast', 'cast', { spec: { option: 'spec', required: true, kind: 'list' }, ...REPLACE_NULL }),
  ...keyAndValue('MaskField', 'mask_field', {
    fields: { option: 'fields', required: true, kind: 'list' },
    replacement: { option: 'replacement', required: false },
    ...REPLACE_NULL,
  }),
  ...keyAndValue('HoistField', 'hoist_field', { field: { option: 'field', required: true } }),
  ...keyAndValue('ExtractField', 'extract_field', {
    field: { option: 'field', required: true },
    'field.syntax.version': { option: 'field_syntax_version', required: false },
    ...REPLACE_NULL,
  }),
  ...keyAndValue('Flatten', 'flatten', { delimiter: { option: 'delimiter', required: false } }),
  ...keyAndValue('HeaderFrom', 'header_from', {
    fields: { option: 'fields', required: true, kind: 'list' },
    headers: { option: 'headers', required: true, kind: 'list' },
    operation: { option: 'operation', required: true },
    ...REPLACE_NULL,
  }),
  ...keyAndValue('TimestampConverter', 'timestamp_converter', {
    field: { option: 'field', required: false },
    'target.type': { option: 'target_type', required: true },
    format: { option: 'format', required: false },
    'unix.precision': { option: 'unix_precision', required: false },
    ...REPLACE_NULL,
  }),
  ValueToKey: { builtIn: 'value_to_key', options: { fields: { option: 'fields', required: true, kind: 'list' }, ...REPLACE_NULL } },
  ...keyAndValue('SetSchemaMetadata', 'set_schema_metadata', {
    'schema.name': { option: 'name', required: false },
    'schema.version': { option: 'version', required: false, kind: 'int' },
    ...REPLACE_NULL,
  }),
};

/** `Name$Key` and `Name$Value`, the same built-in on the key or the value. */
function keyAndValue(name: string, builtIn: string, options: Readonly<Record<string, OptionSpec>>): Record<string, SmtSpec> {
  return {
    [`${name}$Key`]: { builtIn, options, fixed: { on: 'key' } },
    [`${name}$Value`]: { builtIn, options, fixed: { on: 'value' } },
  };
}

const CONNECT_PREDICATES: Readonly<Record<string, SmtSpec>> = {
  TopicNameMatches: { builtIn: 'topic_matches', options: { pattern: { option: 'topic_matches', required: true } } },
  HasHeaderKey: { builtIn: 'has_header', options: { name: { option: 'has_header', required: true } } },
  RecordIsTombstone: { builtIn: 'is_tombstone', options: {} },
};

const BUILT_IN_LIST =
  'RegexRouter (rename_topic), TimestampRouter (route_by_timestamp), InsertHeader (insert_header), DropHeaders (drop_headers), Filter (drop), and with a converter InsertField, ReplaceField, Cast, MaskField, HoistField, ExtractField, Flatten, HeaderFrom, TimestampConverter, SetSchemaMetadata ($Key and $Value) and ValueToKey';

/**
 * Maps the transforms of a flow that replicates; for one that does not (heartbeats only), its own
 * transform keys get a warning, since mirrorflow transforms replicated records only.
 */
export function mapTransforms(base: readonly PathSegment[], connector: Props, replicates: boolean, context: TransformMappingContext): void {
  const { values } = context;
  if (!replicates) {
    for (const [key, prop] of connector) {
      if (/^(transforms|predicates)(\.|$)/.test(key) && prop.key.includes('->')) {
        values.warn(prop, `has no effect: this flow only emits heartbeats (it is not enabled), and mirrorflow transforms replicated records only`);
      }
    }
    return;
  }
  const transformsProp = connector.get('transforms');
  const aliases = transformsProp === undefined ? [] : (aliasList(transformsProp, 'transformation', context) ?? []);
  const predicatesProp = connector.get('predicates');
  const predicateAliases = predicatesProp === undefined ? [] : (aliasList(predicatesProp, 'predicate', context) ?? []);
  // Connect reads only the listed aliases' keys.
  for (const [key, prop] of connector) {
    const match = /^(transforms|predicates)\.([^.]+)\./.exec(key);
    if (match === null || (match[1] === 'transforms' ? aliases : predicateAliases).includes(match[2]!)) continue;
    values.warn(prop, `has no effect: "${match[2]}" is not in ${match[1]}`, `list it in ${match[1]}, or remove the key`);
  }
  if (transformsProp !== undefined) mapListed(base, connector, transformsProp, aliases, new Set(predicateAliases), context);
}

function mapListed(
  base: readonly PathSegment[],
  connector: Props,
  transformsProp: Mm2Property,
  aliases: readonly string[],
  predicateAliases: ReadonlySet<string>,
  context: TransformMappingContext,
): void {
  const { values, document, provenance, driver } = context;

  aliases.forEach((alias, index) => {
    const prefix = `transforms.${alias}.`;
    const path = [...base, 'transforms', index];
    const typeProp = connector.get(`${prefix}type`);
    if (typeProp === undefined) {
      const topLevel = driver.get(`${prefix}type`) !== undefined;
      values.report(
        transformsProp,
        `Missing required configuration "${prefix}type" which has no default value.`,
        topLevel
          ? `MM2 drops a top-level ${prefix}type (only keys its connectors define reach a flow): write it per flow, as <source>-><target>.${prefix}type`
          : `name the transform's class, e.g. <source>-><target>.${prefix}type = ${TRANSFORMS}RegexRouter`,
      );
      return;
    }
    const className = values.literal(typeProp, 'to know which transform it is');
    if (className === undefined) return;
    const smt = lookUp(className, TRANSFORMS, SMTS);
    if (smt === undefined) {
      refuseClass(typeProp, `transform "${alias}"`, className, context);
      return;
    }
    const [name, spec] = smt;
    document.set([...path, 'type'], spec.builtIn, provenance(typeProp));
    for (const [option, value] of Object.entries(spec.fixed ?? {})) document.set([...path, option], value, provenance(typeProp));
    const options = readOptions(connector, prefix, ['type', 'predicate', 'negate'], typeProp, name, spec, context, (option) =>
      document.fail([...path, option]),
    );
    for (const [option, prop, value] of options) document.set([...path, option], value, provenance(prop));
    const offsetField = connector.get(`${prefix}offset.field`);
    if (name.startsWith('InsertField$') && offsetField !== undefined) {
      values.warn(
        offsetField,
        `MM2 fails every record this InsertField sees ("Only SinkRecord supported for [field insertion]": its records are source records); mirrorflow inserts the record's source offset`,
      );
    }
    if (name === 'InsertHeader') {
      values.warn(
        typeProp,
        `MM2's default header.converter (ByteArrayConverter) fails every record this InsertHeader adds a header to ("Invalid schema type for ByteArrayConverter"); mirrorflow writes value.literal as UTF-8 text`,
      );
    }

    const predicateProp = connector.get(`${prefix}predicate`);
    const negateProp = connector.get(`${prefix}negate`);
    if (predicateProp === undefined) {
      if (negateProp !== undefined) {
        values.report(
          negateProp,
          `Config '${prefix}negate' was provided but there is no config '${prefix}predicate' defining a predicate to be negated.`,
          undefined,
          false,
        );
      }
      return;
    }
    const predicateAlias = values.literal(predicateProp, 'to know which predicate it is');
    if (predicateAlias === undefined) return;
    if (!predicateAliases.has(predicateAlias)) {
      values.report(
        predicateProp,
        `names predicate "${predicateAlias}", which is not in predicates`,
        `add it: predicates = ${[...predicateAliases, predicateAlias].join(', ')}`,
      );
      return;
    }
    const when = readPredicate(connector, predicateAlias, context, (option) => document.fail([...path, 'when', option]));
    if (when === undefined) return;
    for (const [condition, prop, value] of when) document.set([...path, 'when', condition], value, provenance(prop));
    if (negateProp !== undefined) {
      const negate = values.booleanLeaf(negateProp);
      if (negate !== undefined) document.set([...path, 'negate'], negate, provenance(negateProp));
    }
  });
}

/** Connect's alias lists: trimmed, no duplicates (`aliasValidator`). */
function aliasList(prop: Mm2Property, kind: string, context: TransformMappingContext): string[] | undefined {
  const { values } = context;
  const literal = values.literal(prop, `to know the ${kind}s`);
  if (literal === undefined) return undefined;
  const aliases = values.list(prop).filter((a) => a !== '');
  if (new Set(aliases).size !== aliases.length) {
    values.report(prop, `Invalid value ${literal} for configuration ${prop.key}: Duplicate alias provided.`, `list each ${kind} once`);
    return undefined;
  }
  return aliases;
}

function readPredicate(
  connector: Props,
  alias: string,
  context: TransformMappingContext,
  missing: (option: string) => void,
): [string, Mm2Property, unknown][] | undefined {
  const { values } = context;
  const prefix = `predicates.${alias}.`;
  const typeProp = connector.get(`${prefix}type`);
  const listProp = connector.get('predicates')!;
  if (typeProp === undefined) {
    values.report(
      listProp,
      `Missing required configuration "${prefix}type" which has no default value.`,
      `name the predicate's class, e.g. <source>-><target>.${prefix}type = ${PREDICATES}HasHeaderKey`,
    );
    return undefined;
  }
  const className = values.literal(typeProp, 'to know which predicate it is');
  if (className === undefined) return undefined;
  const predicate = lookUp(className, PREDICATES, CONNECT_PREDICATES);
  if (predicate === undefined) {
    refuseClass(typeProp, `predicate "${alias}"`, className, context);
    return undefined;
  }
  const [name, spec] = predicate;
  if (name === 'RecordIsTombstone') {
    readOptions(connector, prefix, ['type'], typeProp, name, spec, context, missing);
    return [['is_tombstone', typeProp, true]];
  }
  return readOptions(connector, prefix, ['type'], typeProp, name, spec, context, missing);
}

/** The options under `prefix` with their pipeline names; problems for unknown and missing ones. */
function readOptions(
  connector: Props,
  prefix: string,
  reserved: readonly string[],
  typeProp: Mm2Property,
  name: string,
  spec: SmtSpec,
  context: TransformMappingContext,
  /** Told the pipeline name of each required option that is missing (already reported). */
  missing: (option: string) => void,
): [string, Mm2Property, unknown][] {
  const { values } = context;
  const out: [string, Mm2Property, unknown][] = [];
  const known = Object.keys(spec.options);
  for (const [key, prop] of connector) {
    if (!key.startsWith(prefix)) continue;
    const option = key.slice(prefix.length);
    if (reserved.includes(option)) continue;
    const optionSpec = spec.options[option];
    if (optionSpec === undefined) {
      const suggestion = didYouMean(option, known);
      values.report(
        prop,
        `unknown option "${option}" for ${name}`,
        suggestion !== undefined
          ? `did you mean "${prop.key.slice(0, prop.key.length - option.length)}${suggestion}"?`
          : known.length > 0
            ? `${name} reads: ${known.join(', ')}`
            : `${name} has no options`,
        false,
      );
      continue;
    }
    if (optionSpec.kind === 'replace-null') {
      const replace = values.boolean(prop, `to know how ${name} reads null fields`);
      if (replace === false) {
        values.report(
          prop,
          `is not supported: mirrorflow's ${spec.builtIn} reads a null struct field that has a default as its default, as ${name} does with replace.null.with.default = true (Connect's default)`,
          `remove the key; data read by JsonConverter holds no such null anyway, since the converter reads a null field with a default as its default`,
        );
      }
      continue;
    }
    const text = prop.value.trim();
    const value =
      optionSpec.kind === 'list' ? values.list(prop).filter((h) => h !== '') : optionSpec.kind === 'int' && /^[+-]?\d+$/.test(text) ? Number(text) : text;
    out.push([optionSpec.option, prop, value]);
  }
  for (const [option, optionSpec] of Object.entries(spec.options)) {
    if (optionSpec.required && !connector.has(`${prefix}${option}`)) {
      values.report(
        typeProp,
        `Missing required configuration "${option}" which has no default value.`,
        `set ${typeProp.key.slice(0, -'type'.length)}${option} (${name})`,
        false,
      );
      missing(optionSpec.option);
    }
  }
  return out;
}

/** The spec of a class given by its full name or, as Connect's plugin aliases allow, its simple name. */
function lookUp(className: string, packagePrefix: string, specs: Readonly<Record<string, SmtSpec>>): [string, SmtSpec] | undefined {
  const simple = className.startsWith(packagePrefix) ? className.slice(packagePrefix.length) : className;
  const spec = specs[simple];
  return spec === undefined ? undefined : [simple, spec];
}

function refuseClass(typeProp: Mm2Property, what: string, className: string, context: TransformMappingContext): void {
  const { values } = context;
  const simple = className.replace(/^.*\./, '').replace(/\$(Key|Value)$/, '');
  const isConnect = className.startsWith(TRANSFORMS);
  const candidates = isConnect || !className.includes('.') ? [...Object.keys(SMTS), ...Object.keys(CONNECT_PREDICATES)] : [];
  const suggestion = didYouMean(simple, candidates);
  values.report(
    typeProp,
    isConnect || !className.includes('.')
      ? `${what} is ${className}, which mirrorflow has no built-in for`
      : `${what} is ${className}, Java code, which mirrorflow cannot run`,
    suggestion !== undefined ? `did you mean ${suggestion}? built in: ${BUILT_IN_LIST}` : `built in: ${BUILT_IN_LIST}; or write a transform plugin (plugins/)`,
  );
}
