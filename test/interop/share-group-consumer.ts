/**
 * Share-group applications (KIP-932) for the tests: Kafka's own KafkaShareConsumer
 * (`java/ShareGroupConsumer.java`) in a share group, acknowledging each record it processed and
 * committing the acknowledgements, as users run theirs.
 */
import { JavaPrograms, parseConsumerRun } from './java-programs';
import type { ConsumedRecord } from './group-consumer';

export interface ShareConsumerRun {
  /** The records it accepted, in the order they came. */
  readonly records: readonly ConsumedRecord[];
  /** Per `topic-partition`: the first and last offsets accepted and how many. */
  readonly partitions: Readonly<Record<string, { readonly first: number; readonly last: number; readonly count: number }>>;
  /** Per `topic-partition`: the group's start offset once it stopped, as Kafka reports it (-1: none). */
  readonly startOffsets: Readonly<Record<string, number>>;
}

export interface ShareConsumeOptions {
  readonly bootstrap: string;
  readonly group: string;
  readonly topics: readonly string[];
  /** Sets the group's `share.auto.offset.reset` before it joins; unset: the group keeps its own (Kafka's default: latest). */
  readonly reset?: 'earliest' | 'latest';
  /** Accept this many records, release the rest, and stop. */
  readonly max?: number;
  /** Stop once the last record of every partition that has records from the group's start offset on came. */
  readonly toEnd?: boolean;
  readonly timeoutMs?: number;
}

export class JavaShareConsumers {
  private constructor(private readonly programs: JavaPrograms) {}

  static async compile(): Promise<JavaShareConsumers> {
    return new JavaShareConsumers(await JavaPrograms.compile('ShareGroupConsumer.java'));
  }

  /** Runs a share consumer to its end (`max` records, or the end of its partitions) and returns what it accepted. */
  async consume(options: ShareConsumeOptions): Promise<ShareConsumerRun> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const stdout = await this.programs.run('ShareGroupConsumer', [...args(options), `stayMs=${timeoutMs - 10_000}`], '', timeoutMs);
    return parseRun(stdout);
  }

  /**
   * Starts a member of `group` that stays in it (an application running on the target) until
   * `stop()`; resolves once the group lists it as a member.
   */
  async join(options: Pick<ShareConsumeOptions, 'bootstrap' | 'group' | 'topics'>): Promise<{ stop(): Promise<ShareConsumerRun> }> {
    const member = await this.programs.member(
      'ShareGroupConsumer',
      [...args(options), 'stay=true', 'stayMs=600000'],
      `a Java share consumer of ${options.group}`,
    );
    return { stop: async () => parseRun(await member.stop()) };
  }

  dispose(): void {
    this.programs.dispose();
  }
}

function args(o: Pick<ShareConsumeOptions, 'bootstrap' | 'group' | 'topics'> & Partial<ShareConsumeOptions>): string[] {
  return [
    `bootstrap=${o.bootstrap}`,
    `group=${o.group}`,
    `topics=${o.topics.join(',')}`,
    ...(o.reset === undefined ? [] : [`reset=${o.reset}`]),
    ...(o.max === undefined ? [] : [`max=${o.max}`]),
    ...(o.toEnd === true ? ['toEnd=true'] : []),
  ];
}

function parseRun(stdout: string): ShareConsumerRun {
  return parseConsumerRun<ConsumedRecord, Omit<ShareConsumerRun, 'records'>>(stdout, 'the Java share consumer');
}
