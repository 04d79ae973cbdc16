/**
 * Topic ACLs through kafkajs's admin (DescribeAcls and CreateAcls v1, which know prefixed
 * patterns), in the port's terms (`TopicAcl`). kafkajs sends both to the controller it knows.
 */
import { AclOperationTypes, AclPermissionTypes, AclResourceTypes, ResourcePatternTypes, type Admin, type AclEntry } from '../kafkajs';
import { SecurityDisabledError, TOPIC_ACL_OPERATIONS, type AclCreateResult, type TopicAcl, type TopicAclOperation } from '../../core/ports/topic-acl';
import { describeError } from '../../core/errors';

const OPERATION_NAMES = new Map<number, TopicAclOperation>(TOPIC_ACL_OPERATIONS.map((name) => [AclOperationTypes[name], name]));

/** Every ACL of a topic resource on the cluster, literal and prefixed. */
export async function describeTopicAcls(admin: Admin, cluster: string): Promise<TopicAcl[]> {
  const response = await withSecurityCheck(cluster, () =>
    admin.describeAcls({
      resourceType: AclResourceTypes.TOPIC,
      resourcePatternType: ResourcePatternTypes.ANY,
      operation: AclOperationTypes.ANY,
      permissionType: AclPermissionTypes.ANY,
    }),
  );
  const acls: TopicAcl[] = [];
  for (const resource of response.resources) {
    const patternType =
      resource.resourcePatternType === ResourcePatternTypes.PREFIXED
        ? 'PREFIXED'
        : resource.resourcePatternType === ResourcePatternTypes.LITERAL
          ? 'LITERAL'
          : undefined;
    if (resource.resourceType !== AclResourceTypes.TOPIC || patternType === undefined) continue;
    for (const acl of resource.acls) {
      const operation = OPERATION_NAMES.get(acl.operation);
      const permission = acl.permissionType === AclPermissionTypes.ALLOW ? 'ALLOW' : acl.permissionType === AclPermissionTypes.DENY ? 'DENY' : undefined;
      // An operation a topic cannot have (or a newer one than kafkajs knows) is left out.
      if (operation === undefined || permission === undefined) continue;
      acls.push({ name: resource.resourceName, patternType, principal: acl.principal, host: acl.host, operation, permission });
    }
  }
  return acls;
}

/**
 * Creates the ACLs in one request. kafkajs reports only the first refusal of a request, so when
 * the cluster refuses something each ACL is sent again on its own, to say which were refused
 * and why. A failure of the request as a whole (the cluster down, no authorizer) throws.
 */
export async function createTopicAcls(admin: Admin, cluster: string, acls: readonly TopicAcl[]): Promise<AclCreateResult[]> {
  if (acls.length === 0) return [];
  const create = (batch: readonly TopicAcl[]) => withSecurityCheck(cluster, () => admin.createAcls({ acl: batch.map(toAclEntry) }));
  try {
    await create(acls);
    return acls.map((acl) => ({ acl }));
  } catch (error) {
    if (!isRefusal(error)) throw error;
    if (acls.length === 1) return [{ acl: acls[0]!, error: describeError(error) }];
  }
  const results: AclCreateResult[] = [];
  for (const acl of acls) {
    try {
      await create([acl]);
      results.push({ acl });
    } catch (error) {
      if (!isRefusal(error)) throw error;
      results.push({ acl, error: describeError(error) });
    }
  }
  return results;
}

function toAclEntry(acl: TopicAcl): AclEntry {
  return {
    resourceType: AclResourceTypes.TOPIC,
    resourceName: acl.name,
    resourcePatternType: acl.patternType === 'PREFIXED' ? ResourcePatternTypes.PREFIXED : ResourcePatternTypes.LITERAL,
    principal: acl.principal,
    host: acl.host,
    operation: AclOperationTypes[acl.operation],
    permissionType: acl.permission === 'ALLOW' ? AclPermissionTypes.ALLOW : AclPermissionTypes.DENY,
  };
}

/** Kafka's answer for one ACL of a CreateAcls request: a protocol error other than "no authorizer". */
function isRefusal(error: unknown): boolean {
  const e = error as { name?: string; type?: string; retriable?: boolean } | undefined;
  return e?.name === 'KafkaJSProtocolError' && e.retriable === false && e.type !== 'SECURITY_DISABLED';
}

async function withSecurityCheck<T>(cluster: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    if ((error as { type?: string } | undefined)?.type === 'SECURITY_DISABLED') throw new SecurityDisabledError(cluster, { cause: error });
    throw error;
  }
}
