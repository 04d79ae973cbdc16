/**
 * The transforms every pipeline can use without loading plugins.
 */
import type { TransformDefinition } from '../api';
import { drop } from './drop';
import { dropHeaders } from './drop-headers';
import { insertHeader } from './insert-header';
import { renameTopic } from './rename-topic';
import { routeByTimestamp } from './route-by-timestamp';

export { drop, dropHeaders, insertHeader, renameTopic, routeByTimestamp };
export { recordPredicateSchema, compileRecordPredicate, type RecordPredicate, type RecordPredicateConfig } from './record-predicate';

export const builtInTransforms: readonly TransformDefinition[] = [insertHeader, dropHeaders, renameTopic, routeByTimestamp, drop];

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
};
