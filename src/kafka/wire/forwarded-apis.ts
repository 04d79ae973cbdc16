/**
 * Admin requests a KRaft broker forwards to its active controller, asked for only once the broker
 * says it takes them.
 *
 * A KRaft broker lists a forwarded request (CreateTopics, IncrementalAlterConfigs, …) in its
 * ApiVersions answer only while it knows the active controller's versions of it: it leaves them out
 * right after it starts, and while it has no connection to an active controller. kafkajs asks a
 * client's first broker for its versions once and keeps that answer for every broker of the client
 * for as long as the client lives, so a client that connected in such a moment could never create a
 * topic ("The Kafka server does not support the requested API version"), where Kafka's Java client
 * asks again on its next connection. Before such a request goes out to a broker whose kept versions
 * lack it, the broker is asked for its versions again, for a while, and the answer is kept in the
 * client's shared versions object (which every broker of the client reads at each request).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { kafkajsApiKeys, type KafkajsApiKeys } from './kafkajs-internals';

/** Kafka's forwardable requests among those kafkajs's Broker or mirrorflow send, by their names in kafkajs's API key table. */
export type ForwardedApi = Exclude<keyof KafkajsApiKeys, 'Produce' | 'Fetch' | 'Metadata'>;

/** kafkajs's Broker methods that send a forwarded request, and which. */
export const FORWARDING_BROKER_METHODS: Readonly<Record<string, ForwardedApi>> = {
  createTopics: 'CreateTopics',
  deleteTopics: 'DeleteTopics',
  createAcls: 'CreateAcls',
  deleteAcls: 'DeleteAcls',
  alterConfigs: 'AlterConfigs',
  createPartitions: 'CreatePartitions',
  alterPartitionReassignments: 'AlterPartitionReassignments',
};

export type ApiVersionRanges = Record<number, { readonly minVersion: number; readonly maxVersion: number }>;

/** What of kafkajs's Broker this needs: its kept versions (shared by the client's brokers) and an ApiVersions request. */
export interface VersionedBroker {
  readonly versions?: ApiVersionRanges | null;
  apiVersions(): Promise<ApiVersionRanges>;
}

export interface OfferedWait {
  /** How long the broker is asked again, at most; then the request goes out and fails as kafkajs fails it. */
  readonly timeoutMs: number;
  /** The first pause between two asks; each next one twice as long, up to `maxDelayMs`. */
  readonly initialDelayMs: number;
  readonly maxDelayMs: number;
}

/**
 * About as long as a KRaft broker takes to find a newly elected controller, with room for a
 * loaded machine; a request kafkajs sends waits as long for its answer (its default request timeout).
 */
export const OFFERED_WAIT: OfferedWait = { timeoutMs: 30_000, initialDelayMs: 100, maxDelayMs: 1_000 };

/** What the asks came to: whether the broker's versions list `api` now, and how many ApiVersions were sent. */
export interface Offered {
  readonly offered: boolean;
  readonly asked: number;
}

/**
 * Resolves at once when `broker`'s kept versions list `api`, when it has none yet (`offered`), or
 * when it is older than `api` (not `offered`, nothing asked); else asks the broker for its versions
 * again (with growing pauses, for `wait.timeoutMs` at most), keeps each answer in the shared
 * versions object, and resolves once `api` is in it, or when the time is up. A failed ApiVersions
 * request (the broker went away) rejects: the request would fail the same way.
 */
export async function untilOffered(broker: VersionedBroker, api: ForwardedApi, wait: OfferedWait = OFFERED_WAIT): Promise<Offered> {
  const key = kafkajsApiKeys()[api];
  const kept = broker.versions;
  // Not connected yet: kafkajs asks for the versions when it connects.
  if (kept === null || kept === undefined || kept[key] !== undefined) return { offered: true, asked: 0 };
  // API keys are numbered in the order Kafka added them: a broker that lists none above this one
  // is older than the request, and asking again will not change that.
  if (!Object.keys(kept).some((listed) => Number(listed) > key)) return { offered: false, asked: 0 };
  const deadline = Date.now() + wait.timeoutMs;
  let delay = wait.initialDelayMs;
  for (let asked = 1; ; asked++) {
    const fresh = await broker.apiVersions();
    // kafkajs gives every broker of a client the first one's object: filled in, it serves them all.
    Object.assign(kept, fresh);
    if (fresh[key] !== undefined) return { offered: true, asked };
    if (Date.now() + delay > deadline) return { offered: false, asked };
    await sleep(delay);
    delay = Math.min(delay * 2, wait.maxDelayMs);
  }
}

/** The sentence kafkajs's "does not support the requested API version" is given when the broker never offered `api`. */
export function notOfferedReason(api: ForwardedApi, broker: string, wait: OfferedWait = OFFERED_WAIT): string {
  return `${broker} did not offer ${api} in ${Math.round(wait.timeoutMs / 1000)} s of asking (a KRaft broker takes the requests it forwards to its controller only while it reaches an active one)`;
}
