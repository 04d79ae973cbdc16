import { MirrorflowError, type ErrorOptions } from '../errors';

/**
 * One ACL on a topic resource, in Kafka's own words (`AclBinding` of a TOPIC resource): a
 * literal ACL names one topic (or `*`, every topic), a prefixed one every topic starting with
 * `name`.
 */
export interface TopicAcl {
  readonly name: string;
  readonly patternType: 'LITERAL' | 'PREFIXED';
  /** `User:alice`. */
  readonly principal: string;
  /** `*` or an IP address. */
  readonly host: string;
  /** Kafka's AclOperation name: `READ`, `WRITE`, `ALL`, `DESCRIBE`, … */
  readonly operation: TopicAclOperation;
  readonly permission: 'ALLOW' | 'DENY';
}

export const TOPIC_ACL_OPERATIONS = ['ALL', 'READ', 'WRITE', 'CREATE', 'DELETE', 'ALTER', 'DESCRIBE', 'DESCRIBE_CONFIGS', 'ALTER_CONFIGS'] as const;
export type TopicAclOperation = (typeof TOPIC_ACL_OPERATIONS)[number];

/** One ACL of a `createAcls` call and what the cluster answered for it. */
export interface AclCreateResult {
  readonly acl: TopicAcl;
  /** Why the cluster refused it; undefined when created. */
  readonly error?: string;
}

/** A stable text key of an ACL, to compare ACLs of two clusters. */
export function topicAclKey(acl: TopicAcl): string {
  return [acl.patternType, acl.name, acl.principal, acl.host, acl.operation, acl.permission].join('\u0000');
}

/** `ALLOW User:alice READ on topic orders (LITERAL) from *`, for logs. */
export function describeTopicAcl(acl: TopicAcl): string {
  return `${acl.permission} ${acl.principal} ${acl.operation} on topic ${acl.patternType === 'PREFIXED' ? 'prefix ' : ''}"${acl.name}" from ${acl.host}`;
}

/**
 * The cluster has no authorizer (Kafka's SECURITY_DISABLED): it keeps no ACLs, so there are none
 * to read or write. Not retriable.
 */
export class SecurityDisabledError extends MirrorflowError {
  override readonly name = 'SecurityDisabledError';
  override readonly code = 'SECURITY_DISABLED';

  constructor(
    readonly cluster: string,
    options: ErrorOptions = {},
  ) {
    super(`Cluster "${cluster}" has no authorizer configured: it keeps no ACLs.`, options);
  }
}
