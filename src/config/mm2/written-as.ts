import type { Mm2Entry } from './mm2-document';

/**
 * A setting as the user would write it in the file `entry` came from, for hints: `key = value` in a
 * driver file or a properties connector config, `"key": "value"` in Connect's JSON.
 */
export function writtenAs(entry: Pick<Mm2Entry, 'format'> | undefined, key: string, value: string): string {
  return entry?.format === 'json' ? `${JSON.stringify(key)}: ${JSON.stringify(value)}` : `${key} = ${value}`;
}

/** What the file is called in a hint: a driver file, or a connector config. */
export function fileKind(entry: Pick<Mm2Entry, 'file'> | undefined): string {
  return entry?.file === undefined ? 'an mm2.properties file' : 'a connector config';
}
