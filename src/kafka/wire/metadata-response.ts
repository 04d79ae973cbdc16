/**
 * Metadata response v5, whose decode kafkajs's v6 response reuses (the version kafkajs asks a
 * Kafka 2.0 or newer broker for), installed in place of kafkajs's
 * `protocol/requests/metadata/v5/response`. The answer is kafkajs's, field for field, except that
 * the partitions of one answer that list the same brokers share one array for the list:
 * `replicas`, `isr` and `offlineReplicas` are arrays of broker ids, and across thousands of
 * partitions only a handful of distinct lists occur (one per placement of the replicas).
 *
 * kafkajs keeps one metadata answer per client for every topic the client named, and replaces it
 * whole at each refresh. At 19,000 partitions each copy held 57,000 of these arrays, about 8 MiB,
 * and a process held four copies (the source consumer, the writer, an admin client per cluster);
 * each refresh left the copy it replaced in V8's old generation until the next full collection
 * (issue 42 item 6). Shared, a copy's lists are a few arrays, and the answer's partition objects
 * are what is left of it.
 *
 * The shared arrays are frozen: kafkajs and mirrorflow only read them, and a write through one
 * partition would otherwise change every partition that shares it.
 */
import { KAFKAJS_METADATA_V0_RESPONSE, kafkajsFetchDecoding, kafkajsInternal, type KafkajsResponseDecoder } from './kafkajs-internals';

type Decoder = KafkajsResponseDecoder & { readBoolean(): boolean };

export interface MetadataBroker {
  readonly nodeId: number;
  readonly host: string;
  readonly port: number;
  readonly rack: string | null;
}

export interface MetadataPartition {
  readonly partitionErrorCode: number;
  readonly partitionId: number;
  readonly leader: number;
  readonly replicas: readonly number[];
  readonly isr: readonly number[];
  readonly offlineReplicas: readonly number[];
}

export interface MetadataTopic {
  readonly topicErrorCode: number;
  readonly topic: string;
  readonly isInternal: boolean;
  readonly partitionMetadata: readonly MetadataPartition[];
}

export interface MetadataResponse {
  readonly throttleTime: number;
  readonly brokers: readonly MetadataBroker[];
  readonly clusterId: string | null;
  readonly controllerId: number;
  readonly topicMetadata: readonly MetadataTopic[];
}

interface ListNode {
  readonly next: Map<number, ListNode>;
  list?: readonly number[];
}

/**
 * The broker id lists of one answer, each distinct list made once: a list is looked up in a tree
 * by its length and then its ids, read from the answer without allocating anything when the list
 * was seen before; a list not seen before is read again into a new array.
 */
class SharedLists {
  private readonly byLength = new Map<number, ListNode>();

  /** Reads an INT32 array (length, then ids) as kafkajs's `readArray` does: a null array (−1) reads as empty. */
  read(decoder: Decoder): readonly number[] {
    const length = Math.max(0, decoder.readInt32());
    let node: ListNode | undefined = this.byLength.get(length);
    if (node === undefined) this.byLength.set(length, (node = { next: new Map() }));
    const start = decoder.offset;
    for (let i = 0; i < length; i++) {
      const id = decoder.readInt32();
      let child: ListNode | undefined = node.next.get(id);
      if (child === undefined) node.next.set(id, (child = { next: new Map() }));
      node = child;
    }
    if (node.list === undefined) {
      const end = decoder.offset;
      decoder.offset = start;
      const list: number[] = [];
      for (let i = 0; i < length; i++) list.push(decoder.readInt32());
      decoder.offset = end;
      node.list = Object.freeze(list);
    }
    return node.list;
  }
}

const broker = (decoder: Decoder): MetadataBroker => ({
  nodeId: decoder.readInt32(),
  host: decoder.readString(),
  port: decoder.readInt32(),
  rack: decoder.readString(),
});

function decodeSync(rawData: Buffer): MetadataResponse {
  const decoder = new (kafkajsFetchDecoding().Decoder)(rawData) as Decoder;
  const lists = new SharedLists();
  const partitionMetadata = (d: Decoder): MetadataPartition => ({
    partitionErrorCode: d.readInt16(),
    partitionId: d.readInt32(),
    leader: d.readInt32(),
    replicas: lists.read(d),
    isr: lists.read(d),
    offlineReplicas: lists.read(d),
  });
  const topicMetadata = (d: Decoder): MetadataTopic => ({
    topicErrorCode: d.readInt16(),
    topic: d.readString(),
    isInternal: d.readBoolean(),
    partitionMetadata: d.readArray(partitionMetadata as (d: KafkajsResponseDecoder) => MetadataPartition),
  });
  return {
    throttleTime: decoder.readInt32(),
    brokers: decoder.readArray(broker as (d: KafkajsResponseDecoder) => MetadataBroker),
    clusterId: decoder.readString(),
    controllerId: decoder.readInt32(),
    topicMetadata: decoder.readArray(topicMetadata as (d: KafkajsResponseDecoder) => MetadataTopic),
  };
}

type Parse = (data: MetadataResponse) => Promise<MetadataResponse>;
let kafkajsParse: Parse | undefined;

/**
 * kafkajs's v5 response: our decode, kafkajs's v0 parse (the first topic or partition error is
 * thrown), loaded on first use because this module is loaded while kafkajs's bundle is.
 */
export const metadataResponseV5 = {
  decode: async (rawData: Buffer): Promise<MetadataResponse> => decodeSync(rawData),
  parse: (data: MetadataResponse): Promise<MetadataResponse> => {
    kafkajsParse ??= (kafkajsInternal(KAFKAJS_METADATA_V0_RESPONSE) as { parse: Parse }).parse;
    return kafkajsParse(data);
  },
};
