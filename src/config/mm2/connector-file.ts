/**
 * One MM2 connector config, as people run MM2's connectors inside a Kafka Connect cluster: a
 * Java properties file (`connect-mirror-source.properties`), or Connect's JSON, either as
 * `POST /connectors` takes it (`{"name": …, "config": {…}}`) or as `PUT /connectors/{name}/config`
 * takes it (the config map itself). Every entry keeps its file, line and column, so a problem
 * found later names the text to fix. Which connector it is comes from `connector.class`, with or
 * without the package, as Connect accepts it.
 */
import { extname } from 'node:path';
import { isMap, isNode, isScalar, LineCounter, parseDocument } from '#yaml';
import type { ConfigIssue } from '../../core/errors';
import { readPropertyEntries } from './java-properties';
import type { Mm2Entry } from './mm2-document';

export type ConnectorRole = 'source' | 'checkpoint' | 'heartbeat';

const CONNECTOR_CLASSES: Readonly<Record<string, ConnectorRole>> = {
  MirrorSourceConnector: 'source',
  MirrorCheckpointConnector: 'checkpoint',
  MirrorHeartbeatConnector: 'heartbeat',
};
const MIRROR_PACKAGE = 'org.apache.kafka.connect.mirror.';

export interface ConnectorFile {
  readonly file: string;
  readonly role: ConnectorRole;
  /** Every entry but `connector.class`, in file order. */
  readonly entries: readonly Mm2Entry[];
  /** The `connector.class` entry: it stands for the values the connector implies. */
  readonly classEntry: Mm2Entry;
}

/** A `.json` file, or a `.properties` file that names a `connector.class` and no `clusters` (a driver file's key). */
export function isConnectorConfig(file: string, text: string): boolean {
  const extension = extname(file).toLowerCase();
  if (extension === '.json') return true;
  if (extension !== '.properties') return false;
  const keys = new Set(readPropertyEntries(text).map((e) => e.key));
  return keys.has('connector.class') && !keys.has('clusters');
}

/** How a connector config is written: told by the file's extension unless given (a REST request body is JSON). */
export type ConnectorFormat = 'json' | 'properties';

/** Reads one connector file; problems go to `problems` and the result is undefined when it cannot be used. */
export function readConnectorFile(file: string, text: string, problems: ConfigIssue[], format?: ConnectorFormat): ConnectorFile | undefined {
  const json = format === undefined ? extname(file).toLowerCase() === '.json' : format === 'json';
  const entries = json ? readJsonEntries(file, text, problems) : readPropertyEntries(text).map((e): Mm2Entry => ({ ...e, file, format: 'properties' }));
  if (entries === undefined) return undefined;
  if (entries.length === 0) {
    problems.push({
      file,
      line: 1,
      column: 1,
      message: 'the connector config is empty',
      hint: 'a connector config names connector.class, source.cluster.alias and the clusters',
    });
    return undefined;
  }
  const classEntry = entries.findLast((e) => e.key === 'connector.class');
  if (classEntry === undefined) {
    problems.push({
      file,
      path: 'connector.class',
      message: 'missing required key',
      hint: 'connector.class = org.apache.kafka.connect.mirror.MirrorSourceConnector (or MirrorCheckpointConnector, MirrorHeartbeatConnector)',
    });
    return undefined;
  }
  const className = classEntry.value.trim();
  const role = CONNECTOR_CLASSES[className.startsWith(MIRROR_PACKAGE) ? className.slice(MIRROR_PACKAGE.length) : className];
  if (role === undefined) {
    problems.push({
      file,
      line: classEntry.valueLine,
      column: classEntry.valueColumn,
      path: 'connector.class',
      message: `${className} is not one of MM2's connectors: mirrorflow runs MirrorSourceConnector, MirrorCheckpointConnector and MirrorHeartbeatConnector`,
    });
    return undefined;
  }
  return { file, role, classEntry, entries: entries.filter((e) => e.key !== 'connector.class') };
}

/** Connect's JSON: the config map, or `{"name", "config"}` around it; every value a string (numbers and booleans are taken as Connect's REST API takes them). */
function readJsonEntries(file: string, text: string, problems: ConfigIssue[]): Mm2Entry[] | undefined {
  try {
    JSON.parse(text);
  } catch (error) {
    problems.push({ file, message: `not valid JSON: ${error instanceof Error ? error.message : String(error)}` });
    return undefined;
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(text, { lineCounter, prettyErrors: false });
  const position = (offset: number): { line: number; column: number } => {
    const { line, col } = lineCounter.linePos(offset);
    return { line, column: col };
  };
  let map = doc.contents;
  if (!isMap(map)) {
    problems.push({
      file,
      line: 1,
      column: 1,
      message: 'a connector config in JSON is an object',
      hint: '{"name": "…", "config": {"connector.class": "…", …}} or the config object itself',
    });
    return undefined;
  }
  const config = map.items.find((pair) => isScalar(pair.key) && pair.key.value === 'config');
  if (config !== undefined) {
    if (!isMap(config.value)) {
      const at = isScalar(config.key) && config.key.range ? position(config.key.range[0]) : {};
      problems.push({ file, ...at, path: 'config', message: 'config must be an object of connector settings' });
      return undefined;
    }
    // POST /connectors: the name beside the config is the connector's name.
    for (const pair of map.items) {
      if (pair === config || !isScalar(pair.key) || pair.key.value === 'name') continue;
      const at = pair.key.range ? position(pair.key.range[0]) : {};
      problems.push({
        file,
        ...at,
        path: String(pair.key.value),
        message: `unknown field ${String(pair.key.value)} beside config`,
        hint: 'Connect takes name and config here',
      });
    }
    map = config.value;
  }
  const entries: Mm2Entry[] = [];
  for (const pair of map.items) {
    if (!isScalar(pair.key)) continue;
    const key = String(pair.key.value);
    const keyAt = position(pair.key.range?.[0] ?? 0);
    const value = pair.value;
    const valueRange = isNode(value) ? value.range : undefined;
    const valueAt = valueRange ? position(valueRange[0]) : keyAt;
    if (!isScalar(value) || value.value === null || typeof value.value === 'object') {
      problems.push({
        file,
        line: valueAt.line,
        column: valueAt.column,
        path: key,
        message: 'must be a string',
        hint: 'Connect configs hold text values, e.g. "tasks.max": "1"',
      });
      continue;
    }
    entries.push({
      key,
      value: String(value.value),
      line: keyAt.line,
      column: keyAt.column,
      valueLine: valueAt.line,
      valueColumn: valueAt.column,
      file,
      format: 'json',
    });
  }
  return entries;
}

/** A connector config's class, flow and settings as written (connector.class included); undefined when it cannot be read. */
export interface ConnectorSettings {
  readonly role: ConnectorRole;
  readonly className: ConnectorClassName;
  readonly source: string;
  readonly target: string;
  readonly settings: Readonly<Record<string, string>>;
}

export type ConnectorClassName = 'MirrorSourceConnector' | 'MirrorCheckpointConnector' | 'MirrorHeartbeatConnector';

export function connectorSettings(file: string, text: string, format?: ConnectorFormat): ConnectorSettings | undefined {
  const connector = readConnectorFile(file, text, [], format);
  if (connector === undefined) return undefined;
  const settings: Record<string, string> = { 'connector.class': connector.classEntry.value.trim() };
  for (const entry of connector.entries) settings[entry.key] = entry.value;
  const className = Object.entries(CONNECTOR_CLASSES).find(([, role]) => role === connector.role)![0] as ConnectorClassName;
  // MirrorConnectorConfig's default target alias.
  return {
    role: connector.role,
    className,
    source: settings['source.cluster.alias']?.trim() ?? '',
    target: settings['target.cluster.alias']?.trim() ?? 'target',
    settings,
  };
}
