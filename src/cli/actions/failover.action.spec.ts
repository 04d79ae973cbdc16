import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { FailoverPlan } from '../../pipeline/tools';
import { renderFailover } from './failover.action';
import { renderTranslation } from './offsets-translate.action';

const NOW = Date.parse('2026-01-01T00:01:00Z');
const plan: FailoverPlan = {
  group: 'orders-app',
  source: 'primary',
  target: 'backup',
  groupType: 'consumer',
  checkpointsTopic: 'primary.checkpoints.internal',
  force: false,
  targetState: 'empty',
  sourceState: 'dead',
  partitions: [
    {
      topic: 'primary.orders',
      partition: 0,
      sourceOffset: 120,
      checkpointOffset: 100,
      checkpointedAt: NOW - 60_000,
      translatedOffset: 99,
      metadata: '',
      action: 'commit',
    },
    { topic: 'primary.orders', partition: 1, checkpointOffset: 40, translatedOffset: 39, targetOffset: 50, metadata: '', action: 'keep-target' },
  ],
  warnings: ['Something to know.'],
  steps: [
    { kind: 'check', cluster: 'backup', action: 'group "orders-app" still has no active members (it is empty now)' },
    { kind: 'change', cluster: 'backup', action: 'commit 1 offset(s) of group "orders-app": primary.orders-0 → 99' },
  ],
};

describe('renderFailover', () => {
  it('shows every partition with its offsets and action, the warnings, and that a dry run wrote nothing', () => {
    const text = renderFailover(plan, true, undefined, NOW);
    assert.match(text, /^Dry run: failover of group "orders-app" from primary to backup$/m);
    assert.match(text, /newest checkpoint: 2026-01-01T00:00:00\.000Z \(60s ago\)/);
    assert.match(text, /^TOPIC +PARTITION +SOURCE +CHECKPOINT +TRANSLATED +TARGET +ACTION$/m);
    assert.match(text, /^primary\.orders +0 +120 +100 +99 +- +would commit 99$/m);
    assert.match(text, /^primary\.orders +1 +- +40 +39 +50 +kept: target is ahead \(--force rewinds\)$/m);
    assert.match(text, /^ {2}- Something to know\.$/m);
    assert.match(text, /Dry run: nothing was written\. Without --dry-run, 1 offset\(s\) would be committed on backup\./);
    assert.match(
      text,
      /^Would, in order:\n {2}1\. check: on backup: group "orders-app" still has no active members \(it is empty now\)\n {2}2\. on backup: commit 1 offset\(s\) of group "orders-app": primary\.orders-0 → 99$/m,
    );
  });

  it("says when the newest checkpoint, however old, is at the group's offsets on the source now", () => {
    const still: FailoverPlan = { ...plan, partitions: plan.partitions.map((p) => ({ ...p, sourceOffset: p.checkpointOffset! })) };
    assert.match(
      renderFailover(still, true, undefined, NOW),
      /^ {2}newest checkpoint: 2026-01-01T00:00:00\.000Z \(60s ago\), at the group's offsets on primary now$/m,
    );
    assert.match(
      renderFailover(plan, true, undefined, NOW),
      /^ {2}newest checkpoint: 2026-01-01T00:00:00\.000Z \(60s ago\)$/m,
      'not while the group is ahead of it',
    );
  });

  it('says what was committed after a real run', () => {
    const text = renderFailover(plan, false, { committed: [{ topic: 'primary.orders', partition: 0, offset: 99, metadata: '' }] }, NOW);
    assert.match(text, /^primary\.orders +0 +120 +100 +99 +- +committed 99$/m);
    assert.match(text, /Committed 1 offset\(s\) for group "orders-app" on backup\. Start its consumers on backup\./);
    assert.match(text, /^Done, in order:$/m);
  });

  it('shows a share group by its start offsets, without a checkpoint column', () => {
    const share: FailoverPlan = {
      ...plan,
      group: 'workers',
      groupType: 'share',
      partitions: [
        { topic: 'primary.jobs', partition: 0, sourceOffset: 40, translatedOffset: 39, metadata: '', action: 'commit' },
        { topic: 'primary.jobs', partition: 2, sourceOffset: 4, metadata: '', action: 'not-translated' },
      ],
      warnings: [],
      steps: [{ kind: 'change', cluster: 'backup', action: 'set 1 start offset(s) of share group "workers": primary.jobs-0 → 39' }],
    };
    const dry = renderFailover(share, true, undefined, NOW);
    assert.match(dry, /^Dry run: failover of share group "workers" from primary to backup$/m);
    assert.doesNotMatch(dry, /checkpoints: /);
    assert.match(dry, /SOURCE: the share group's start offset on primary now/);
    assert.match(dry, /^TOPIC +PARTITION +SOURCE +TRANSLATED +TARGET +ACTION$/m);
    assert.match(dry, /^primary\.jobs +0 +40 +39 +- +would set 39$/m);
    assert.match(dry, /^primary\.jobs +2 +4 +- +- +skipped: no offset sync translates it$/m);
    assert.match(dry, /Without --dry-run, 1 start offset\(s\) would be set on backup\./);
    const done = renderFailover(share, false, { committed: [{ topic: 'primary.jobs', partition: 0, offset: 39, metadata: '' }] }, NOW);
    assert.match(done, /Set 1 start offset\(s\) for share group "workers" on backup\. Start its share consumers on backup\./);
  });

  it('says a refused failover wrote nothing, and why', () => {
    const text = renderFailover({ ...plan, targetState: 'stable', refusal: 'Group "orders-app" has active members.' }, false, undefined, NOW);
    assert.match(text, /group on backup: stable \(has active members\)/);
    assert.match(text, /would commit 99/);
    assert.match(text, /Refused: nothing was written\. Group "orders-app" has active members\./);
  });
});

describe('renderTranslation', () => {
  it('prints one row per topic-partition, or says there is nothing yet', () => {
    const result = {
      source: 'primary',
      target: 'backup',
      groupType: 'consumer',
      checkpointsTopic: 'primary.checkpoints.internal',
      groups: [
        { group: 'g', offsets: [{ topic: 'primary.orders', partition: 3, offset: 987, metadata: 'm', upstreamOffset: 1000, checkpointedAt: NOW - 5000 }] },
      ],
    };
    const text = renderTranslation(result, false, NOW);
    assert.match(text, /^Offsets on backup of group "g", translated from primary \(primary\.checkpoints\.internal on backup\):$/m);
    assert.match(text, /^primary\.orders +3 +987 +1000 +2026-01-01T00:00:55\.000Z \(5s ago\) +m$/m);
    assert.equal(
      renderTranslation({ ...result, groups: [{ group: 'g', offsets: [] }] }, false, NOW),
      'No translated offsets: group "g" has no checkpoints in primary.checkpoints.internal on backup yet.\n',
    );
  });
});
