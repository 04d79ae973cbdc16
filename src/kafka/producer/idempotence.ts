/**
 * The writer's idempotence (producer.idempotent, on by default): a producer id from the target's
 * InitProducerId, and per partition the sequences of what is sent (producer-sequences.ts), so that
 * a write sent again after its answer was lost is dropped by the broker instead of appended twice.
 *
 * kafkajs's own idempotent mode is not used: it counts a partition's sequence by its messages
 * (one for a forwarded record batch, whatever its record count), moves the sequences of the
 * partitions a partial write left over past records never written, and takes a new producer id
 * with every producer, where the writer makes a new producer after a failed connect or a partial
 * write. Here the producer id and the sequences belong to the writer and outlive its kafkajs
 * producers (the broker keys its producer state by producer id, not by connection), and each
 * partition's first message carries its producer fields to our produce request
 * (../wire/produce-request.ts).
 *
 * The broker's answers, handled as Kafka's Java producer handles them:
 * - DUPLICATE_SEQUENCE_NUMBER: the batch was written earlier, and the broker no longer has its
 *   offsets (it keeps the last five batches per producer and partition): acknowledged, offset -1
 *   (no offset sync is taken from it). A duplicate it still has offsets for is answered without
 *   an error, with the first copy's offsets.
 * - OUT_OF_ORDER_SEQUENCE_NUMBER, UNKNOWN_PRODUCER_ID (the broker dropped the producer's state:
 *   its last records were deleted by retention, or it was idle past
 *   `transactional.id.expiration.ms`), INVALID_PRODUCER_EPOCH: the partition was not written; a
 *   new producer id is taken before the next send, and the write goes again.
 * A new producer id is also taken when a send was never answered and what goes next to that
 * partition is not the same write (the flow stopped retrying it). Either way the broker cannot
 * tell a resent record from a new one across producer ids: what the doubtful send carried, if it
 * was written, is written again — duplicates are possible exactly then, as with Java's producer
 * after it resets its producer id. Each new id is logged as a warning; more than MAX_RENEWALS in a
 * row without a partition acknowledged in between end the write (something is wrong beyond a
 * lost answer).
 */
import { KafkaAuthorizationError, KafkaTransportError } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';
import { toTransportError } from '../errors';
import type { Kafka } from '../kafkajs';
import { rawCluster } from '../wire/raw-cluster';
import { ProducerSequences, type ProducerIdentity, type ProducerStamp } from './producer-sequences';
import { isBatchTooLarge } from '../wire/produce-response';
import { DUPLICATE_SEQUENCE_NUMBER, writtenOrFailed, type ProducePartition, type SequenceSource, type WriteSequences } from './sequence-source';

/** Answers after which the partition was not written and the producer id is no good. */
const RENEW_ON: Readonly<Record<number, string>> = {
  45: 'OUT_OF_ORDER_SEQUENCE_NUMBER',
  47: 'INVALID_PRODUCER_EPOCH',
  59: 'UNKNOWN_PRODUCER_ID',
};
const INIT_PRODUCER_ID_API_KEY = 22;
export const MAX_RENEWALS = 5;

/** One partition's part of a produce round. */
interface StampRequest {
  readonly topic: string;
  readonly partition: number;
  /** Records it holds (a forwarded batch counts its records). */
  readonly count: number;
  /** Its first item: the same object when the same write goes again. */
  readonly first: object;
}

/** Asks the target for a producer id (any broker hands one out to a non-transactional producer). */
export type InitProducerId = () => Promise<ProducerIdentity>;

/**
 * The writer's sequences with one send at a time (`producer.max_in_flight: 1`), as a sequence
 * source of the produce engine: rounds of every write run one after the other (writes of the
 * internal topics may overlap), since a round stamped while another to the same partition is
 * unanswered would find that one in doubt and take a new producer id.
 */
export class Idempotence implements SequenceSource, WriteSequences {
  private readonly sequences = new ProducerSequences();
  /** Why the next round needs a new producer id first, if it does. */
  private renewal: string | undefined;
  private renewals = 0;
  /** The last round, which the next one waits for. */
  private sending: Promise<void> = Promise.resolve();

  constructor(
    private readonly cluster: string,
    private readonly initProducerId: InitProducerId,
    private readonly logger?: Logger,
  ) {}

  /** Every write shares the writer's sequences. */
  write(): WriteSequences {
    return this;
  }

  round(partitions: readonly ProducePartition[], send: () => Promise<void>): Promise<void> {
    const run = this.sending.then(async () => {
      const stamps = await this.stamp(partitions.map((p) => ({ topic: p.topic, partition: p.partition, count: p.records, first: p.items[0]! })));
      for (let i = 0; i < partitions.length; i++) partitions[i]!.stamp = stamps[i]!;
      await send();
      // Each answer settles its partition's sequences before another round may stamp it.
      for (const p of partitions) {
        if (p.answer === undefined) continue;
        p.verdict = this.answer(p.topic, p.partition, p.answer.errorCode) === 'renew' ? 'again' : writtenOrFailed(p.answer.errorCode);
      }
    });
    this.sending = run.then(
      () => undefined,
      () => undefined,
    );
    return run;
  }

  /** The producer fields for each partition of a round, in order; asks for a producer id first when needed. */
  private async stamp(requests: readonly StampRequest[]): Promise<ProducerStamp[]> {
    if (this.sequences.identity === undefined) await this.start();
    else if (this.renewal !== undefined) await this.renew(this.renewal);
    let stamps = requests.map((r) => this.sequences.stamp(r.topic, r.partition, r.count, r.first));
    if (stamps.includes('in-doubt')) {
      await this.renew(`a write to ${this.sequences.doubtful().join(', ')} was never answered and is not the one being sent now`);
      stamps = requests.map((r) => this.sequences.stamp(r.topic, r.partition, r.count, r.first));
    }
    return stamps as ProducerStamp[];
  }

  /**
   * Takes the broker's answer for a partition of the round: 'renew' when it takes a new producer
   * id (the partition was not written: it goes again with the new id), undefined when the writer
   * handles it as without idempotence (DUPLICATE_SEQUENCE_NUMBER counting as written).
   */
  private answer(topic: string, partition: number, errorCode: number): 'renew' | undefined {
    if (errorCode === 0 || errorCode === DUPLICATE_SEQUENCE_NUMBER) {
      this.sequences.acknowledged(topic, partition);
      this.renewals = 0;
      return undefined;
    }
    const renewOn = RENEW_ON[errorCode];
    if (renewOn !== undefined) {
      this.sequences.notWritten(topic, partition);
      this.renewal ??= `${topic}-${partition} answered ${renewOn}`;
      return 'renew';
    }
    // Refused as too large: not written, and what goes next is smaller. Any other error leaves
    // the send in doubt: the same items go again with the same sequences.
    if (isBatchTooLarge(errorCode)) this.sequences.notWritten(topic, partition);
    return undefined;
  }

  private async start(): Promise<void> {
    const identity = await this.initProducerId();
    this.sequences.start(identity);
    this.renewal = undefined;
    this.logger?.debug('Writing idempotently.', { producerId: identity.producerId, producerEpoch: identity.producerEpoch });
  }

  private async renew(reason: string): Promise<void> {
    if (this.renewals >= MAX_RENEWALS) {
      throw new KafkaTransportError(
        this.cluster,
        `Writing records failed: the target refused the producer's sequences after ${this.renewals} new producer ids in a row with nothing written in between (last: ${reason})`,
        false,
      );
    }
    this.renewals++;
    const old = this.sequences.identity;
    this.sequences.forget();
    await this.start();
    this.logger?.warn('Writing with a new producer id; records of a write whose answer was lost may be on the target twice.', {
      reason,
      oldProducerId: old?.producerId,
      producerId: this.sequences.identity?.producerId,
    });
  }
}

/** kafkajs's names of the answers a broker gives while its coordinator for producer ids is not ready. */
const COORDINATOR_NOT_READY = new Set(['GROUP_LOAD_IN_PROGRESS', 'GROUP_COORDINATOR_NOT_AVAILABLE', 'NOT_COORDINATOR_FOR_GROUP']);
const NOT_READY_ATTEMPTS = 10;

/**
 * Asks again, up to 10 times over about 10 s, while the broker's coordinator is not ready (a new
 * cluster creates and loads `__transaction_state` at the first InitProducerId), as kafkajs's and
 * Java's producers do; a failure after that is a retriable one, for the caller's retries.
 */
async function askLoading<T>(ask: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await ask();
    } catch (error) {
      const type = (error as { type?: unknown }).type;
      if (attempt >= NOT_READY_ATTEMPTS || typeof type !== 'string' || !COORDINATOR_NOT_READY.has(type)) throw error;
      await new Promise((resolve) => setTimeout(resolve, Math.min(100 * 2 ** (attempt - 1), 2_000)));
    }
  }
}

/**
 * InitProducerId through a raw cluster of the writer's Kafka instance (../wire/raw-cluster.ts), connected for the
 * request only. A target that refuses it fails the write for good, naming the cluster, as Java's
 * producer fails every send then: a broker before 0.11 has no idempotent producer, and on Kafka
 * before 2.8 the principal needs the IDEMPOTENT_WRITE operation on the cluster.
 */
export function initProducerIdFrom(kafka: Kafka, cluster: string): InitProducerId {
  const refused = ' — grant it, or write without idempotence: flows[].producer.idempotent: false (MM2: producer.enable.idempotence=false)';
  return async () => {
    const raw = rawCluster(kafka);
    try {
      await raw.connect();
      await raw.refreshMetadataIfNecessary();
      const broker = await raw.anyBroker();
      if (broker.versions?.[INIT_PRODUCER_ID_API_KEY] === undefined) {
        throw new KafkaTransportError(
          cluster,
          'the target does not support idempotent writes (InitProducerId, Kafka 0.11 or newer); set flows[].producer.idempotent: false (MM2: producer.enable.idempotence=false)',
          false,
        );
      }
      const result = await askLoading(() => broker.initProducerId({ transactionTimeout: 60_000 }));
      return { producerId: Number(result.producerId), producerEpoch: result.producerEpoch };
    } catch (error) {
      if (error instanceof KafkaTransportError) throw error;
      const failure = toTransportError(cluster, error, 'Asking for an idempotent producer id (InitProducerId)');
      if (!(failure instanceof KafkaAuthorizationError)) throw failure;
      throw new KafkaAuthorizationError(
        cluster,
        `${failure.detail}: an idempotent producer needs the IDEMPOTENT_WRITE operation on the cluster (Kafka 2.8 and newer also take WRITE on a topic)${refused}`,
        undefined,
        {
          cause: error,
        },
      );
    } finally {
      await raw.disconnect().catch(() => undefined); // a probe's connection: the check's outcome is what counts
    }
  };
}
