/**
 * The transforms every pipeline can use without loading plugins.
 */
import type { TransformDefinition } from '../api';
import { drop } from './drop';
import { dropHeaders } from './drop-headers';
import { insertHeader } from './insert-header';
import { renameTopic } from './rename-topic';
import { routeByTimestamp } from './route-by-timestamp';
import { insertField } from './insert-field';
import { replaceField } from './replace-field';
import { cast } from './cast';
import { maskField } from './mask-field';
import { hoistField } from './hoist-field';
import { extractField } from './extract-field';
import { flatten } from './flatten';
import { headerFrom } from './header-from';
import { timestampConverter } from './timestamp-converter';
import { valueToKey } from './value-to-key';
import { setSchemaMetadata } from './set-schema-metadata';

export { drop, dropHeaders, insertHeader, renameTopic, routeByTimestamp };

/** Built-ins that read fields of the key or value: they need the flow's converter for it. */
export const fieldTransforms: readonly TransformDefinition[] = [
  insertField,
  replaceField,
  cast,
  maskField,
  hoistField,
  extractField,
  flatten,
  headerFrom,
  timestampConverter,
  valueToKey,
  setSchemaMetadata,
];
export { recordPredicateSchema, compileRecordPredicate, type RecordPredicate, type RecordPredicateConfig } from './record-predicate';

export const builtInTransforms: readonly TransformDefinition[] = [insertHeader, dropHeaders, renameTopic, routeByTimestamp, drop, ...fieldTransforms];

/**
 * Kafka Connect SMT class names (as in mm2.properties `transforms.X.type`) and the built-in that
 * does the same job, for hints and for translating an MM2 configuration.
 */
export const connectTransformEquivalents: Readonly<Record<string, string>> = {
  'org.apache.kafka.connect.transforms.InsertHeader': 'insert_header',
  'org.apache.kafka.connect.transforms.DropHeaders': 'drop_headers',
  'org.apache.kafka.connect.transforms.RegexRouter': 'rename_topic',
  'org.apache.kafka.connect.transforms.TimestampRouter': 'route_by_timestamp',
  'org.apache.kafka.connect.transforms.Filter': 'drop',
  'org.apache.kafka.connect.transforms.InsertField': 'insert_field',
  'org.apache.kafka.connect.transforms.ReplaceField': 'replace_field',
  'org.apache.kafka.connect.transforms.Cast': 'cast',
  'org.apache.kafka.connect.transforms.MaskField': 'mask_field',
  'org.apache.kafka.connect.transforms.HoistField': 'hoist_field',
  'org.apache.kafka.connect.transforms.ExtractField': 'extract_field',
  'org.apache.kafka.connect.transforms.Flatten': 'flatten',
  'org.apache.kafka.connect.transforms.HeaderFrom': 'header_from',
  'org.apache.kafka.connect.transforms.TimestampConverter': 'timestamp_converter',
  'org.apache.kafka.connect.transforms.ValueToKey': 'value_to_key',
  'org.apache.kafka.connect.transforms.SetSchemaMetadata': 'set_schema_metadata',
};
