/** Why an ACL of the source is not copied to the target (see `planTopicAcls`). */
export type AclSkipReason =
  /** `ALLOW WRITE`: only mirrorflow writes remote topics (MM2 never copies it either). */
  | 'allow-write'
  /** A literal `*` (every topic): on the target it would cover topics that are not remote topics of this source. */
  | 'wildcard'
  /** A prefixed ACL while `topic_sync.acls.prefixed` is off (MM2 copies literal ACLs only). */
  | 'prefixed'
  /** Its topic is not replicated by this flow (for a prefix: no replicated topic starts with it). */
  | 'not-replicated'
  /** The target refused to create it. */
  | 'refused';

export const ACL_SKIP_REASONS: readonly AclSkipReason[] = ['allow-write', 'wildcard', 'prefixed', 'not-replicated', 'refused'];

/**
 * Live counters of one flow's topic ACL sync (`FlowStatus.acls`), updated once per pass.
 * `no-authorizer`: a cluster has no authorizer, so there are no ACLs to sync; the sync ended.
 */
export class AclSyncStatus {
  state: 'disabled' | 'starting' | 'running' | 'no-authorizer' | 'failing' | 'stopped' = 'disabled';
  /** Passes that completed. */
  passes = 0;
  /** ACLs created on the target. */
  created = 0;
  /** ACLs of the source not copied, each counted once (when first seen), by reason. */
  readonly skipped: Record<AclSkipReason, number> = { 'allow-write': 0, wildcard: 0, prefixed: 0, 'not-replicated': 0, refused: 0 };
  /** Passes that failed otherwise than by an outage (a missing permission, say); the next interval tries again. */
  errors = 0;
  lastError: string | undefined;
  /** Epoch ms of the last completed pass. */
  lastPassAt: number | undefined;
}
