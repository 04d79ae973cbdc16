/**
 * `schema_registry: { ids: translate }`: the keys and values of a flow's records are in
 * Confluent's wire format (magic byte, schema id, payload) with ids of the source's registry; the
 * target's consumers read them with the target's registry, which gave the same schemas other ids.
 * Each id is replaced by the target's id of the same schema under the subject the target topic's
 * records use (TopicNameStrategy, as Confluent's serializers and Connect name it:
 * `<target topic>-key` / `-value`, after renames); the schema is registered there when missing.
 * The payload is never decoded. Answers are kept per subject and id, so the registries are asked
 * once per schema, and a batch whose ids are all known passes without waiting.
 *
 * A record whose side is not in the wire format, whose id the source registry does not know, or
 * whose schema the target refuses (incompatible under the subject) fails as a transform does
 * (errors.tolerance); a registry that cannot be reached is an outage, retried with backoff.
 */
import { defer, from, lastValueFrom, type SchedulerLike } from 'rxjs';
import { RecordFailedError } from '../core/errors';
import type { Logger } from '../core/ports/logger';
import { SchemaRegistryRefusal, type SchemaRegistryClient } from '../core/ports/schema-registry';
import type { DecodedFlowBatch, MirrorRecord, RecordFailure } from '../core/record';
import { confluentSchemaId, withConfluentSchemaId } from '../formats/confluent-wire-format';
import type { OutageTracker } from './outage-status';
import { retryThroughOutage } from './operators/retry-through-outage';

export type RecordSide = 'key' | 'value';

export interface SchemaIdTranslationOptions {
  readonly source: SchemaRegistryClient;
  readonly target: SchemaRegistryClient;
  /** The sides in the wire format; a null side passes (a tombstone, a record without key). */
  readonly sides: readonly RecordSide[];
  /** Where the setting is, for failures: `flows[0].schema_registry`. */
  readonly path: string;
  readonly errorTolerance: 'none' | 'all';
  readonly outage: OutageTracker;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/** A failure of one subject and id, kept for the batch that met it only: the next batch asks again. */
class Refused {
  constructor(readonly reason: string) {}
}

const STAGE_PLUGIN = 'schema_registry';

export class SchemaIdTranslation {
  /** `<subject>\0<source id>` → target id. */
  private readonly ids = new Map<string, number>();

  constructor(private readonly options: SchemaIdTranslationOptions) {}

  /** The batch with every id replaced; a promise only when a registry must be asked first. */
  translate(batch: DecodedFlowBatch): DecodedFlowBatch | Promise<DecodedFlowBatch> {
    const missing = new Map<string, { subject: string; id: number }>();
    for (const record of batch.records) {
      for (const side of this.options.sides) {
        const id = confluentSchemaId(record[side]);
        if (id === undefined) continue;
        const subject = `${record.topic}-${side}`;
        const key = `${subject}\0${id}`;
        if (!this.ids.has(key)) missing.set(key, { subject, id });
      }
    }
    if (missing.size === 0) return this.rewrite(batch, new Map());
    return this.resolve(missing).then((refused) => this.rewrite(batch, refused));
  }

  /** Asks the registries for every missing id, one after another; returns those refused. */
  private async resolve(missing: ReadonlyMap<string, { subject: string; id: number }>): Promise<Map<string, Refused>> {
    const refused = new Map<string, Refused>();
    for (const [key, { subject, id }] of missing) {
      const answer = await lastValueFrom(
        defer(() => from(this.targetId(subject, id))).pipe(retryThroughOutage({ tracker: this.options.outage, scheduler: this.options.scheduler })),
      ).catch((error: unknown) => {
        if (error instanceof SchemaRegistryRefusal) return new Refused(error.message);
        throw error;
      });
      if (answer instanceof Refused) refused.set(key, answer);
      else {
        this.ids.set(key, answer);
        this.options.logger.info('Schema id translated.', { subject, sourceId: id, targetId: answer });
      }
    }
    return refused;
  }

  private async targetId(subject: string, id: number): Promise<number | Refused> {
    const schema = await this.options.source.schemaById(id);
    if (schema.references.length > 0) {
      return new Refused(`schema id ${id} of ${this.options.source.url} refers to other subjects' schemas, which mirrorflow does not copy`);
    }
    return this.options.target.register(subject, schema);
  }

  private rewrite(batch: DecodedFlowBatch, refused: ReadonlyMap<string, Refused>): DecodedFlowBatch {
    const records: MirrorRecord[] = [];
    const failures: RecordFailure[] = [];
    for (const record of batch.records) {
      let out: MirrorRecord = record;
      let failure: string | undefined;
      for (const side of this.options.sides) {
        const bytes = record[side];
        if (bytes === null) continue;
        const id = confluentSchemaId(bytes);
        if (id === undefined) {
          failure = `its ${side} is not in the Confluent wire format (magic byte 0 and a schema id), which ${this.options.path} says it is in`;
          break;
        }
        const key = `${record.topic}-${side}\0${id}`;
        const target = this.ids.get(key);
        if (target === undefined) {
          failure = refused.get(key)?.reason ?? `schema id ${id} has no id in ${this.options.target.url}`;
          break;
        }
        if (target !== id) out = { ...out, [side]: withConfluentSchemaId(bytes, target) };
      }
      if (failure === undefined) records.push(out);
      else {
        const stage = { kind: 'transform', plugin: STAGE_PLUGIN, step: this.options.path } as const;
        failures.push({ record, error: new RecordFailedError(record.source, stage, failure) });
      }
    }
    if (failures.length === 0) return records.length === batch.records.length && records.every((r, i) => r === batch.records[i]) ? batch : { ...batch, records };
    if (this.options.errorTolerance === 'all') return { ...batch, records, deadLetters: [...(batch.deadLetters ?? []), ...failures] };
    // Tolerance none: the batch ends just before the first failing record, as for a transform.
    const first = failures[0]!;
    const at = first.record.source.offset;
    if (batch.failure !== undefined && batch.failure.source.offset < at) return { ...batch, records: records.filter((r) => r.source.offset < batch.failure!.source.offset) };
    const kept = records.filter((r) => r.source.offset < at);
    const read = batch.sourceRecords - batch.records.filter((r) => r.source.offset >= at).length;
    return { ...batch, records: kept, nextOffset: at, sourceRecords: Math.min(read, batch.sourceRecords), failure: first.error };
  }
}
