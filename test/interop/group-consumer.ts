/**
 * The applications of the failover, drill and failback tests: Kafka's own Java consumer in a
 * consumer group (`java/GroupConsumer.java`), as users run theirs, reading from the group's
 * committed offsets and committing what it processed.
 */
import { JavaPrograms, parseConsumerRun } from './java-programs';

export interface ConsumedRecord {
  readonly topic: string;
  readonly partition: number;
  readonly offset: number;
  readonly key: string | null;
  readonly value: string | null;
}

export interface ConsumerRun {
  readonly records: readonly ConsumedRecord[];
  /** Per `topic-partition`: the first and last offsets read and how many. */
  readonly partitions: Readonly<Record<string, { readonly first: number; readonly last: number; readonly count: number }>>;
  /** Per `topic-partition`: the offset committed last. */
  readonly committed: Readonly<Record<string, number>>;
}

export interface ConsumeOptions {
  readonly bootstrap: string;
  readonly group: string;
  readonly topics: readonly string[];
  /** auto.offset.reset; default `none`: a partition without a committed offset fails the consumer, as a careful failover wants. */
  readonly reset?: 'earliest' | 'latest' | 'none';
  /** Stop after this many records, committing exactly those. */
  readonly max?: number;
  /** Stop once every assigned partition is read to the end it had when assigned. */
  readonly toEnd?: boolean;
  readonly timeoutMs?: number;
}

export class JavaGroupConsumers {
  private constructor(private readonly programs: JavaPrograms) {}

  static async compile(): Promise<JavaGroupConsumers> {
    return new JavaGroupConsumers(await JavaPrograms.compile('GroupConsumer.java'));
  }

  /** Runs a consumer to its end (max records, or the end of its partitions) and returns what it read and committed. */
  async consume(options: ConsumeOptions): Promise<ConsumerRun> {
    const timeoutMs = options.timeoutMs ?? 120_000;
    const stdout = await this.programs.run('GroupConsumer', [...args(options), `stayMs=${timeoutMs - 5000}`], '', timeoutMs);
    return parseRun(stdout);
  }

  /**
   * Starts a member of `group` that stays in it (an application running on the target) until
   * `stop()`; resolves once it has partitions assigned.
   */
  async join(options: Pick<ConsumeOptions, 'bootstrap' | 'group' | 'topics' | 'reset'>): Promise<{ stop(): Promise<ConsumerRun> }> {
    const member = await this.programs.member(
      'GroupConsumer',
      [...args({ ...options, reset: options.reset ?? 'latest' }), 'stay=true', 'stayMs=600000'],
      `a Java consumer of ${options.group}`,
    );
    return { stop: async () => parseRun(await member.stop()) };
  }

  dispose(): void {
    this.programs.dispose();
  }
}

function args(o: ConsumeOptions): string[] {
  return [
    `bootstrap=${o.bootstrap}`,
    `group=${o.group}`,
    `topics=${o.topics.join(',')}`,
    `reset=${o.reset ?? 'none'}`,
    ...(o.max === undefined ? [] : [`max=${o.max}`]),
    ...(o.toEnd === true ? ['toEnd=true'] : []),
  ];
}

function parseRun(stdout: string): ConsumerRun {
  return parseConsumerRun<ConsumedRecord, Omit<ConsumerRun, 'records'>>(stdout, 'the Java consumer');
}
