/**
 * Heartbeat records on `heartbeats` (MM2's `Heartbeat`, connect-mirror-client).
 *
 *   key    sourceClusterAlias: STRING
 *          targetClusterAlias: STRING
 *   value  version: INT16 (= 0)
 *          timestamp: INT64         epoch milliseconds, also the record timestamp
 *
 * Readers decode every version with the V0 layout and ignore trailing bytes. Partition 0.
 * Example (`us-west` → `us-east`, 1700000000000):
 *   key   00 07 75 73 2d 77 65 73 74 00 07 75 73 2d 65 61 73 74
 *   value 00 00 | 00 00 01 8b cf e5 68 00
 */
import { RecordFormatError } from './record-format-error';
import { StructReader, StructWriter } from './struct';

export const HEARTBEAT_VERSION = 0;

export interface Heartbeat {
  readonly sourceClusterAlias: string;
  readonly targetClusterAlias: string;
  /** Epoch milliseconds. */
  readonly timestamp: number;
}

export function encodeHeartbeatKey(hb: Pick<Heartbeat, 'sourceClusterAlias' | 'targetClusterAlias'>): Buffer {
  return new StructWriter(8 + hb.sourceClusterAlias.length + hb.targetClusterAlias.length)
    .string('sourceClusterAlias', hb.sourceClusterAlias)
    .string('targetClusterAlias', hb.targetClusterAlias)
    .toBuffer();
}

export function encodeHeartbeatValue(hb: Pick<Heartbeat, 'timestamp'>): Buffer {
  return new StructWriter(10).int16('version', HEARTBEAT_VERSION).int64('timestamp', hb.timestamp).toBuffer();
}

export function decodeHeartbeat(key: Buffer | null, value: Buffer | null): Heartbeat {
  if (key === null) throw new RecordFormatError('Malformed heartbeat: null key');
  if (value === null) throw new RecordFormatError('Malformed heartbeat: null value');
  const k = new StructReader(key, 'heartbeat key');
  const sourceClusterAlias = k.string('sourceClusterAlias');
  const targetClusterAlias = k.string('targetClusterAlias');
  const v = new StructReader(value, 'heartbeat value');
  v.int16('version');
  const timestamp = v.int64('timestamp');
  return { sourceClusterAlias, targetClusterAlias, timestamp };
}

/** The same text as Java's `Heartbeat.toString()`. */
export function formatHeartbeat(hb: Heartbeat): string {
  return `Heartbeat{sourceClusterAlias=${hb.sourceClusterAlias}, targetClusterAlias=${hb.targetClusterAlias}, timestamp=${hb.timestamp}}`;
}
