import { test } from 'node:test';
import assert from 'node:assert/strict';
import { lastValueFrom, of, type Observable } from 'rxjs';
import { ProgressStore } from './progress-store';
import { decodeConnectOffsetValue } from '../formats';
import type { OutboundRecord, RecordWriter } from '../core/ports/record-writer';
import type { ClusterAdmin } from '../core/ports/cluster-admin';
import type { TopicReader } from '../core/ports/record-source';
import { silentLogger } from '../core/ports/logger';

function store(): { progress: ProgressStore; written: OutboundRecord[] } {
  const written: OutboundRecord[] = [];
  const writer: RecordWriter = {
    cluster: 'backup',
    write(records: readonly OutboundRecord[]): Observable<Float64Array> {
      written.push(...records);
      return of(new Float64Array(records.length));
    },
    close: async () => {},
  };
  const progress = new ProgressStore({
    sourceAlias: 'primary',
    topic: 'mm2-offsets.primary.internal',
    replicationFactor: 1,
    targetAdmin: {} as ClusterAdmin,
    reader: {} as TopicReader,
    writer,
    logger: silentLogger,
  });
  return { progress, written };
}

const tp = { topic: 'orders', partition: 0 };

test('progress never goes backwards through acknowledgements, only through a rewind for a restarted source log', async () => {
  const { progress, written } = store();
  progress.markReplicated(tp, 9);
  progress.markReplicated(tp, 4); // a late acknowledgement of older records
  assert.equal(progress.nextOffset(tp), 10);
  progress.rewind(tp, 0);
  assert.equal(progress.nextOffset(tp), 0, 'the new log is read from its start');
  await lastValueFrom(progress.flush(), { defaultValue: undefined });
  assert.deepEqual(
    written.map((r) => decodeConnectOffsetValue(r.value)),
    [-1],
    'stored as MM2 stores "nothing replicated yet": the last offset done, -1',
  );
});
