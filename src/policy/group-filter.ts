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

/**
 * mirrorflow's own groups: each flow's group on its source (`mirrorflow.<pipeline>.<source>-<target>`,
 * with its `.elected` and `.preserved-offsets` groups), the drill's (`mirrorflow-drill.<group>.…`)
 * and those its readers join for a moment (`mirrorflow-reader-<uuid>`). They are never
 * checkpointed, whatever the filter says (as MM2's default leaves out Connect's own groups): their
 * offsets mean nothing on another cluster, and with two flows between the same clusters each
 * would copy the other's.
 */
export function isMirrorflowGroup(group: string): boolean {
  return group.startsWith('mirrorflow.') || group.startsWith('mirrorflow-drill.') || group.startsWith('mirrorflow-reader-');
}

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
    return !isMirrorflowGroup(group) && this.include.matches(group) && !this.exclude.matches(group);
  }
}
