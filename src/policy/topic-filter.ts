/**
 * MM2's `TopicFilter` and `DefaultTopicFilter` (`topics`, `topics.exclude`): a topic is
 * replicated when it fully matches an include regex and no exclude regex. An empty include list
 * replicates nothing (except heartbeats, see `shouldReplicateTopic`).
 */
import { compilePatternList, type PatternList } from './pattern-list';

export interface TopicFilter {
  shouldReplicateTopic(topic: string): boolean;
}

/** `topics` default. */
export const DEFAULT_TOPICS_INCLUDE: readonly string[] = ['.*'];
/**
 * `topics.exclude` default as of Kafka 4.x (KIP-1074): MM2's own internal topics, `.replica`
 * topics and Kafka's `__` topics. Older MM2 excluded `.*[\-\.]internal` instead.
 */
export const DEFAULT_TOPICS_EXCLUDE: readonly string[] = ['mm2.*\\.internal', '.*\\.replica', '__.*'];

export interface DefaultTopicFilterOptions {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

export class DefaultTopicFilter implements TopicFilter {
  private readonly include: PatternList;
  private readonly exclude: PatternList;

  /** Throws `InvalidPatternError` (naming the entry) for an invalid regex. */
  constructor(options: DefaultTopicFilterOptions = {}) {
    this.include = compilePatternList(options.include ?? DEFAULT_TOPICS_INCLUDE);
    this.exclude = compilePatternList(options.exclude ?? DEFAULT_TOPICS_EXCLUDE);
  }

  shouldReplicateTopic(topic: string): boolean {
    return this.include.matches(topic) && !this.exclude.matches(topic);
  }
}
