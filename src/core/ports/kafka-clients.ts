import { token } from './token';
import type { GroupReader } from './group-reader';
import type { ClusterAdmin } from './cluster-admin';
import type { Compression, RecordWriter } from './record-writer';
import type { RecordSource, TopicReader } from './record-source';
import type { LeaderElection } from './leader-election';
import type { SlotTransactions } from './slot-transactions';
import type { RangeReader } from './range-reader';
import type { GroupTimings } from './group-timings';

export type { GroupTimings } from './group-timings';

export interface WriterOptions {
  /** Names the client in broker logs and quotas. */
  readonly role: string;
  readonly compression: Compression;
  /** Acknowledgement wait per produce request, ms. */
  readonly timeoutMs?: number;
  /** Producer id and sequences, so that a write sent again is not appended twice; true unless false. */
  readonly idempotent?: boolean;
  /** Produce requests in flight per target broker (idempotent only; 1 without idempotence); 1 unless set. */
  readonly maxInFlight?: number;
}

export interface SourceOptions {
  readonly role: string;
  readonly isolationLevel: 'read_committed' | 'read_uncommitted';
  readonly maxBytesPerPartition: number;
  /**
   * A Fetch of fewer partitions than this many bytes allow at `maxBytesPerPartition` each asks each
   * for an equal share of it instead; unset: every partition asks for `maxBytesPerPartition`.
   */
  readonly sharedFetchBytes?: number;
  readonly maxWaitMs: number;
  /** A fetch returns once this many bytes are there (or after maxWaitMs). */
  readonly minBytes?: number;
  /** The flow's group; a 6 s session, 1 s heartbeats and a 60 s rebalance timeout when not given. */
  readonly group?: GroupTimings;
  /** The rack this process runs in (`client.rack`): partitions are fetched from a replica there when the brokers allow it. */
  readonly rackId?: string;
}

export interface TransactionsOptions {
  readonly role: string;
  readonly compression: Compression;
  /** Transactional ids are `<prefix>-<slot>`. */
  readonly transactionalIdPrefix: string;
  /** The coordinator aborts a transaction left open longer (a writer that died in it). */
  readonly transactionTimeoutMs: number;
  readonly timeoutMs?: number;
}

/** Creates clients for the clusters of one pipeline. The only way flows reach Kafka. */
export interface KafkaClients {
  admin(cluster: string): ClusterAdmin;
  writer(cluster: string, options: WriterOptions): RecordWriter;
  source(cluster: string, options: SourceOptions): RecordSource;
  reader(cluster: string): TopicReader;
  /** The exactly-once writer of a flow (`delivery: exactly_once`); absent in fakes that have none. */
  transactions?(cluster: string, options: TransactionsOptions): SlotTransactions;
  /** Reads topics as a consumer group member (the DR drill); absent in fakes that have none. */
  groupReader?(cluster: string): GroupReader;
  /**
   * Reads stretches of single partitions (`mirrorflow verify`, continuous verification), a client
   * of its own per call; `role` as a writer's (a flow's job names its flow). Absent in fakes that have none.
   */
  rangeReader?(cluster: string, role?: string): RangeReader;
  /** Elects one of the processes running a flow; absent (fakes), every process counts as elected. */
  election?(cluster: string): LeaderElection;
  /** Turns the client library's own debug logs on or off while running; absent in fakes. */
  setDebug?(on: boolean): void;
  /** Fails with ClusterUnavailableError when the cluster cannot be reached or refuses our credentials. */
  checkReachable(cluster: string): Promise<void>;
  /** Closes the clients made for roles that start with `prefix` (a flow's: `source->target|`) and forgets them. */
  closeRoles(prefix: string): Promise<void>;
  /** Closes every client made so far. */
  close(): Promise<void>;
}
export const KafkaClients = token<KafkaClients>('KafkaClients');
