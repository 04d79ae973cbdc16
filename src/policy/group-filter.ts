/**
 * MM2's `GroupFilter` and `DefaultGroupFilter` (`groups`, `groups.exclude`): which consumer
 * groups get checkpoints. Same regex semantics as the topic filter.
 */
import { compilePatternList, type PatternList } from './pattern-list';

export interface GroupFilter {
  shouldReplicateGroup(group: string): boolean;
}

export const DEFAULT_GROUPS_INCLUDE: readonly string[] = ['.*'];
/** Console consumers, Connect workers and Kafka's own groups. */
export const DEFAULT_GROUPS_EXCLUDE: readonly string[] = ['console-consumer-.*', 'connect-.*', '__.*'];

export interface DefaultGroupFilterOptions {
  readonly include?: readonly string[];
  readonly exclude?: readonly string[];
}

export class DefaultGroupFilter implements GroupFilter {
  private readonly include: PatternList;
  private readonly exclude: PatternList;

  /** Throws `InvalidPatternError` (naming the entry) for an invalid regex. */
  constructor(options: DefaultGroupFilterOptions = {}) {
    this.include = compilePatternList(options.include ?? DEFAULT_GROUPS_INCLUDE);
    this.exclude = compilePatternList(options.exclude ?? DEFAULT_GROUPS_EXCLUDE);
  }

  shouldReplicateGroup(group: string): boolean {
    return this.include.matches(group) && !this.exclude.matches(group);
  }
}
