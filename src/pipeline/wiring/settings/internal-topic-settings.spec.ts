import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { DefaultReplicationPolicy } from '../../../policy';
import { flowWith } from './flow-config-fixture';
import {
  MIGRATION_POLL_MS,
  deadLetterSettings,
  migrationWatchSettings,
  offsetSyncEmitterSettings,
  preservationMarkerGroup,
  progressStoreSettings,
} from './internal-topic-settings';

describe('internal topic settings', () => {
  it("progress lives in Connect's offsets topic of the source, offset syncs in MM2's topic named after the other cluster", () => {
    const flow = flowWith('topic_sync: { replication_factor: 3 }');
    assert.deepEqual(progressStoreSettings(flow), { sourceAlias: 'primary', topic: 'mm2-offsets.primary.internal', replicationFactor: 3 });
    assert.deepEqual(offsetSyncEmitterSettings(flow, new DefaultReplicationPolicy()), { topic: 'mm2-offset-syncs.backup.internal', replicationFactor: 3 });
  });

  it('a dead-letter topic only with errors.tolerance all and a topic name', () => {
    assert.equal(deadLetterSettings(flowWith()), undefined);
    assert.deepEqual(deadLetterSettings(flowWith('errors: { tolerance: all, deadletterqueue: { topic_name: dlq, replication_factor: 2 } }')), {
      flow: 'primary->backup',
      topic: 'dlq',
      replicationFactor: 2,
    });
  });

  it("the migration state and the preservation markers belong to the flow's group", () => {
    assert.deepEqual(migrationWatchSettings('house', flowWith()), {
      topic: 'mm2-migration.primary.internal',
      flowGroup: 'mirrorflow.house.primary-backup',
      pollMs: MIGRATION_POLL_MS,
    });
    assert.equal(preservationMarkerGroup('house', flowWith()), 'mirrorflow.house.primary-backup.preserved-offsets');
  });
});
