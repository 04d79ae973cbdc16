/**
 * The topic ACL part of `mirrorflow diff`: for a flow with `topic_sync.acls.enabled`, the ACLs the
 * ACL sync would create on the target now. It reads both clusters' topic ACLs and runs the sync's
 * own plan (`planTopicAcls`), so the diff and the sync cannot disagree on what is copied; it
 * creates nothing.
 *
 * A cluster without an authorizer keeps no ACLs: the ACLs are then not compared, which is neither
 * drift nor an error (the sync turns itself off for the flow in that case too).
 */
import { firstValueFrom } from '#rxjs';
import type { ClusterAdmin } from '../../core/ports/cluster-admin';
import { SecurityDisabledError, topicAclKey, type TopicAcl } from '../../core/ports/topic-acl';
import type { AclSkipReason } from '../../flow/topics/acl-sync-status';
import { planTopicAcls } from '../../flow/topics/topic-acl-plan';

export type AclDiff =
  | {
      /** Copies the target lacks, as the target would name them: drift. */
      readonly missing: readonly TopicAcl[];
      /** Copies the target has already. */
      readonly present: number;
      /** Source ACLs the sync does not copy, as the source names them, with why: information. */
      readonly skipped: readonly { readonly acl: TopicAcl; readonly reason: AclSkipReason }[];
    }
  | {
      /** Why the ACLs were not compared (a cluster without an authorizer). */
      readonly notCompared: string;
    };

export interface AclDiffContext {
  readonly sourceAdmin: ClusterAdmin;
  readonly targetAdmin: ClusterAdmin;
  /** The policy's `formatRemoteTopic` for the flow's source. */
  readonly remoteTopic: (sourceTopic: string) => string;
  /** MM2's `shouldReplicateTopic` for the flow. */
  readonly shouldReplicate: (sourceTopic: string) => boolean;
  /** The source topics the flow replicates. */
  readonly replicatedTopics: readonly string[];
  /** `topic_sync.acls.prefixed`. */
  readonly prefixed: boolean;
}

export async function diffTopicAcls(context: AclDiffContext): Promise<AclDiff> {
  let sourceAcls: readonly TopicAcl[];
  let targetAcls: readonly TopicAcl[];
  try {
    [sourceAcls, targetAcls] = await Promise.all([
      firstValueFrom(context.sourceAdmin.describeTopicAcls()),
      firstValueFrom(context.targetAdmin.describeTopicAcls()),
    ]);
  } catch (error) {
    if (error instanceof SecurityDisabledError) return { notCompared: `${error.cluster} has no authorizer, so it keeps no ACLs` };
    throw error;
  }
  const plan = planTopicAcls(sourceAcls, context);
  const have = new Set(targetAcls.map(topicAclKey));
  const missing = plan.copies.filter((acl) => !have.has(topicAclKey(acl))).sort(byAcl);
  return { missing, present: plan.copies.length - missing.length, skipped: [...plan.skipped].sort((a, b) => byAcl(a.acl, b.acl)) };
}

/** By resource, then principal, operation, permission and host: a stable order for people and tests. */
function byAcl(a: TopicAcl, b: TopicAcl): number {
  const key = (acl: TopicAcl) => [acl.name, acl.patternType, acl.principal, acl.operation, acl.permission, acl.host].join('\u0000');
  const [x, y] = [key(a), key(b)];
  return x < y ? -1 : x > y ? 1 : 0;
}
