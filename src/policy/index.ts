/**
 * Naming and selection rules of a flow, compatible with MM2: replication policies (which topic
 * is called what where), cycle detection, and the topic, group and config-property filters.
 */
export { ReplicationPolicy, ReplicationPolicyBase } from './replication-policy';
export { DefaultReplicationPolicy, type DefaultReplicationPolicyOptions, DEFAULT_SEPARATOR } from './default-replication-policy';
export { IdentityReplicationPolicy, type IdentityReplicationPolicyOptions } from './identity-replication-policy';
export { createReplicationPolicy, type ReplicationPolicySpec } from './create-replication-policy';
export { compilePatternList, patternListProblems, InvalidPatternError, type PatternList } from './pattern-list';
export { translateJavaRegex, JavaRegexError, type JavaRegexFlags, type TranslatedJavaRegex } from '../core/java-regex';
export { type TopicFilter, DefaultTopicFilter, type DefaultTopicFilterOptions, DEFAULT_TOPICS_INCLUDE, DEFAULT_TOPICS_EXCLUDE } from './topic-filter';
export {
  type GroupFilter,
  DefaultGroupFilter,
  type DefaultGroupFilterOptions,
  DEFAULT_GROUPS_INCLUDE,
  DEFAULT_GROUPS_EXCLUDE,
  isMirrorflowGroup,
} from './group-filter';
export {
  type ConfigPropertyFilter,
  DefaultConfigPropertyFilter,
  type DefaultConfigPropertyFilterOptions,
  type TopicConfigEntry,
  type AlterConfigOp,
  DEFAULT_CONFIG_PROPERTIES_EXCLUDE,
  targetConfig,
  newTopicConfigs,
  alterConfigOps,
} from './config-property-filter';
export { compareTopicConfigs, configChanges, type ConfigDifference } from './config-drift';
export { shouldReplicateTopic, isCycle, type ShouldReplicateContext, type CycleContext } from './should-replicate';
