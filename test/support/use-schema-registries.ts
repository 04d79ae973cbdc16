/**
 * Two Schema Registries of a describe block's own, a source and a target (Apicurio, see
 * schema-registry.ts): started before its tests, stopped after them. Called inside `describe`.
 */
import { after, before } from 'node:test';
import type { KafkaRecord } from '../../src/core/record';
import type { KafkaKit, TestRecord } from './kafka-kit';
import { startPipeline, writePipeline } from './pipeline-harness';
import { startSchemaRegistry, type SchemaRegistry } from './schema-registry';

export interface SchemaRegistries {
  readonly source: SchemaRegistry;
  readonly target: SchemaRegistry;
}

export function useSchemaRegistries(): SchemaRegistries {
  let started: SchemaRegistries | undefined;
  before(async () => {
    const [source, target] = await Promise.all([startSchemaRegistry(), startSchemaRegistry()]);
    started = { source, target };
  });
  after(async () => {
    await Promise.all([started?.source.stop(), started?.target.stop()]);
  });
  const get = (): SchemaRegistries => {
    if (started === undefined) throw new Error('The schema registries are started in the before hook: use them inside a test.');
    return started;
  };
  return {
    get source() {
      return get().source;
    },
    get target() {
      return get().target;
    },
  };
}

/**
 * The run the converter tests share: `written` goes to `topic` (one partition), a pipeline
 * replicates `<prefix>.*` with `flow` (its converter, transforms and schema_registry) and the
 * dead-letter topic `dlq`, until the remote topic `primary.<topic>` holds `copies` records and
 * the dead letters `deadLetters`; then it stops. Returns what the remote topic holds.
 */
export async function replicateToDeadLetters(options: {
  readonly source: KafkaKit;
  readonly target: KafkaKit;
  readonly prefix: string;
  readonly topic: string;
  readonly written: readonly TestRecord[];
  readonly flow: Readonly<Record<string, unknown>>;
  readonly dlq: string;
  readonly copies: number;
  readonly deadLetters: number;
}): Promise<KafkaRecord[]> {
  const { source, target, prefix, topic, dlq, copies, deadLetters } = options;
  const remote = `primary.${topic}`;
  await source.createTopic(topic, 1);
  await source.produce(topic, [...options.written]);
  const { file } = await writePipeline({
    flows: [
      {
        topics: [`${prefix}\\..*`],
        ...options.flow,
        errors: { tolerance: 'all', deadletterqueue: { topic_name: dlq, replication_factor: 1 } },
      },
    ],
  });
  const run = await startPipeline(file);
  try {
    await run.until(async () => (await target.count(remote)) >= copies && (await target.count(dlq)) >= deadLetters, {
      what: `${copies} records in ${remote} and ${deadLetters} in ${dlq}`,
      timeoutMs: 180_000,
    });
  } finally {
    await run.stop();
  }
  return target.readAllFlat(remote);
}
