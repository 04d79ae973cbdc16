/**
 * Which of the source's topic ACLs a flow copies to the target, and as what: MM2's
 * `MirrorSourceConnector.syncTopicAcls` (`shouldReplicateAcl`, `targetAclBinding`), plus prefixed
 * ACLs, which MM2 leaves behind.
 *
 * - `ALLOW WRITE` is never copied: on the target only the replication writes remote topics.
 * - `ALLOW ALL` becomes `ALLOW READ` (same principal and host).
 * - Everything else (`DENY` of any operation, `ALLOW READ`, `ALLOW DESCRIBE`, …) is copied as it is.
 * - The resource becomes the remote topic (`primary.orders`); a prefix becomes the remote name
 *   of the prefix (`orders.` → `primary.orders.`), which starts every remote topic of a topic
 *   starting with the prefix, for the prefix-keeping policies mirrorflow has.
 * - A literal ACL is copied when its topic is replicated (MM2's `shouldReplicateTopic`); a
 *   prefixed one when at least one replicated topic starts with its prefix.
 * - A literal `*` is not copied: MM2 copies it as a literal `primary.*`, which names no topic.
 */
import { topicAclKey, type TopicAcl } from '../../core/ports/topic-acl';
import type { AclSkipReason } from './acl-sync-status';

export interface TopicAclPlanContext {
  /** The policy's `formatRemoteTopic` for the flow's source. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** MM2's `shouldReplicateTopic` for the flow. */
  readonly shouldReplicate: (sourceTopic: string) => boolean;
  /** The source topics being replicated now, for prefixed ACLs. */
  readonly replicatedTopics: readonly string[];
  /** `topic_sync.acls.prefixed`. */
  readonly prefixed: boolean;
}

export interface TopicAclPlan {
  /** The ACLs the target should have, as the target names them; no duplicates. */
  readonly copies: readonly TopicAcl[];
  readonly skipped: readonly { readonly acl: TopicAcl; readonly reason: AclSkipReason }[];
}

export function planTopicAcls(sourceAcls: readonly TopicAcl[], context: TopicAclPlanContext): TopicAclPlan {
  const copies = new Map<string, TopicAcl>();
  const skipped: { acl: TopicAcl; reason: AclSkipReason }[] = [];
  for (const acl of sourceAcls) {
    const reason = skipReason(acl, context);
    if (reason !== undefined) {
      skipped.push({ acl, reason });
      continue;
    }
    const copy = targetAcl(acl, context.remoteTopic);
    copies.set(topicAclKey(copy), copy);
  }
  return { copies: [...copies.values()], skipped };
}

function skipReason(acl: TopicAcl, context: TopicAclPlanContext): AclSkipReason | undefined {
  if (acl.permission === 'ALLOW' && acl.operation === 'WRITE') return 'allow-write';
  if (acl.patternType === 'LITERAL') {
    if (acl.name === '*') return 'wildcard';
    return context.shouldReplicate(acl.name) ? undefined : 'not-replicated';
  }
  if (!context.prefixed) return 'prefixed';
  return context.replicatedTopics.some((topic) => topic.startsWith(acl.name)) ? undefined : 'not-replicated';
}

/** MM2's `targetAclBinding`: the remote name, and `ALLOW ALL` downgraded to `ALLOW READ`. */
export function targetAcl(acl: TopicAcl, remoteTopic: (sourceTopic: string) => string): TopicAcl {
  const operation = acl.permission === 'ALLOW' && acl.operation === 'ALL' ? 'READ' : acl.operation;
  return { ...acl, name: remoteTopic(acl.name), operation };
}
