/**
 * `schema_registry`: the keys or values of a flow's records are in Confluent's wire format (magic
 * byte 0, a 4-byte schema id, the payload) with ids of the source's registry, and the target's
 * consumers read them through the target's registry, which knows the same schemas under other
 * ids. Each id is replaced by the target's id of the same schema under the subject the target
 * topic's records use (TopicNameStrategy, as Confluent's serializers name it: `<target topic>-key`
 * / `-value`, after renames and transforms); the schema is registered there when missing, the
 * schemas it refers to first, each under its own subject. The payload is never decoded.
 *
 * Answers are kept per subject and id (and schemas per source id), so the registries are asked
 * once per schema, not per record; a batch whose ids are all known passes synchronously. So are
 * refusals, for a minute and the latest 1024 of them: records of a topic whose id the source
 * registry does not know fail without asking again for each one, and a schema registered (or a
 * compatibility changed) since is found after at most a minute.
 *
 * A side whose id the source registry does not know, or whose schema the target refuses
 * (incompatible under the subject), fails as a transform does (errors.tolerance); a side that is
 * not in the wire format passes unchanged, or fails with `strict`; a registry that cannot be
 * reached is an outage, retried with backoff for as long as it takes and reported per registry.
 * The dead letter of a record that fails here is the record as the transforms left it.
 *
 * A side a registry converter wrote (`avro`, …) carries a local (negative) id of the schema it
 * was written with (registry-converter.ts): that schema, as the converter's schema type, not one
 * of the source registry, is registered under the subject, and its id there replaces the local one.
 */
import { type Observable, type SchedulerLike, catchError, concatMap, defer, from, map, of, tap, throwError, toArray } from '#rxjs';
import { RecordFailedError } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';
import { SchemaRegistryRefusal, type RegisteredSchema, type SchemaReference, type SchemaRegistryClient } from '../../core/ports/schema-registry';
import type { DecodedFlowBatch, MirrorRecord, RecordFailure } from '../../core/record';
import { confluentSchemaId, withConfluentSchemaId } from '../../formats/confluent-wire-format';
import { SCHEMA_TYPE_LABELS, type RegistryConverter } from '../../plugins';
import type { OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';

export type RecordSide = 'key' | 'value';

export interface SchemaIdTranslationOptions {
  readonly source: SchemaRegistryClient;
  readonly target: SchemaRegistryClient;
  /** The sides in the wire format; a null side passes (a tombstone, a record without key). */
  readonly sides: readonly RecordSide[];
  /**
   * Source topics whose records are never in a registry's format, passed as they are: MM2's
   * heartbeats (version 0 then a timestamp, whose first bytes look like schema id 1).
   */
  readonly passes?: (sourceTopic: string) => boolean;
  /** A non-null side that is not in the wire format fails the record (otherwise it passes as it is). */
  readonly strict: boolean;
  /** Whose setting it is, for failures: `flow primary->backup`. */
  readonly path: string;
  readonly errorTolerance: 'none' | 'all';
  /** Where outages are reported while the calls are retried; without it a call that cannot reach its registry fails (a one-shot command reports it). */
  readonly outages?: { readonly source: OutageTracker; readonly target: OutageTracker };
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
  /** The registry converters that write a side: the schemas of their local (negative) ids are theirs. */
  readonly writers?: Readonly<Partial<Record<RecordSide, Pick<RegistryConverter, 'name' | 'schemaType' | 'writtenSchema'>>>>;
}

/** Deeper reference chains than this are taken for a cycle. */
const MAX_REFERENCE_DEPTH = 32;
/** How long a refusal is kept before the registries are asked again, and how many are kept. */
export const REFUSAL_TTL_MS = 60_000;
export const MAX_REFUSALS = 1024;
const STAGE = { kind: 'transform', plugin: 'schema_registry' } as const;

export class SchemaIdTranslation {
  /** Per target subject: source id → target id. */
  private readonly ids = new Map<string, Map<number, number>>();
  /** Source schemas by id: one topic's schema is often another's too. */
  private readonly schemas = new Map<number, RegisteredSchema>();
  /** `<subject>\0<source version>` → the version the target gave the referenced schema. */
  private readonly referenceVersions = new Map<string, number>();
  /** `<subject>\0<source id>` → the reason it was refused and until when that holds, oldest first. */
  private readonly refusals = new Map<string, { readonly reason: string; readonly until: number }>();

  constructor(private readonly options: SchemaIdTranslationOptions) {}

  /** The batch with every id replaced; an observable only when a registry must be asked first. */
  translate(batch: DecodedFlowBatch): DecodedFlowBatch | Observable<DecodedFlowBatch> {
    if (this.options.passes?.(batch.source.topic) === true) return batch;
    let missing: Map<string, Set<number>> | undefined;
    let refused: Map<string, string> | undefined;
    const now = this.options.scheduler.now();
    for (const record of batch.records) {
      for (const side of this.options.sides) {
        const id = confluentSchemaId(record[side]);
        if (id === undefined) continue;
        const subject = `${record.topic}-${side}`;
        if (this.ids.get(subject)?.has(id)) continue;
        const key = `${subject}\0${id}`;
        const refusal = this.refusals.get(key);
        if (refusal !== undefined && refusal.until > now) {
          (refused ??= new Map()).set(key, refusal.reason);
          continue;
        }
        missing ??= new Map();
        let ids = missing.get(subject);
        if (ids === undefined) missing.set(subject, (ids = new Set()));
        ids.add(id);
      }
    }
    if (missing === undefined) return this.rewrite(batch, refused ?? new Map());
    return this.resolve(missing).pipe(map((answered) => this.rewrite(batch, refused === undefined ? answered : new Map([...refused, ...answered]))));
  }

  /** Asks the registries for every missing subject and id, one after another; emits the reasons of those refused. */
  private resolve(missing: ReadonlyMap<string, ReadonlySet<number>>): Observable<Map<string, string>> {
    const refused = new Map<string, string>();
    const wanted = [...missing].flatMap(([subject, ids]) => [...ids].map((id) => ({ subject, id })));
    return from(wanted).pipe(
      concatMap(({ subject, id }) =>
        this.targetId(subject, id).pipe(
          tap((targetId) => {
            let ids = this.ids.get(subject);
            if (ids === undefined) this.ids.set(subject, (ids = new Map()));
            ids.set(id, targetId);
            const writer = id < 0 ? this.writer(subject) : undefined;
            const what = writer !== undefined ? `Schema written by the ${writer.name} converter registered.` : 'Schema id translated.';
            this.options.logger.info(what, { subject, ...(id < 0 ? {} : { sourceId: id }), targetId, target: this.options.target.url });
          }),
          catchError((error: unknown) => {
            if (!(error instanceof SchemaRegistryRefusal)) return throwError(() => error);
            refused.set(`${subject}\0${id}`, error.message);
            this.keepRefusal(`${subject}\0${id}`, error.message);
            return of(undefined);
          }),
        ),
      ),
      toArray(),
      map(() => refused),
    );
  }

  private keepRefusal(key: string, reason: string): void {
    this.refusals.delete(key);
    this.refusals.set(key, { reason, until: this.options.scheduler.now() + REFUSAL_TTL_MS });
    if (this.refusals.size > MAX_REFUSALS) this.refusals.delete(this.refusals.keys().next().value!);
  }

  /** The registry converter that writes the side of a subject (`<topic>-key` / `-value`). */
  private writer(subject: string): Pick<RegistryConverter, 'name' | 'schemaType' | 'writtenSchema'> | undefined {
    return this.options.writers?.[subject.endsWith('-key') ? 'key' : 'value'];
  }

  private targetId(subject: string, id: number): Observable<number> {
    const { source } = this.options;
    const writer = id < 0 ? this.writer(subject) : undefined;
    const written = writer?.writtenSchema(id);
    const known = written !== undefined ? { schema: written, schemaType: writer!.schemaType, references: [] } : this.schemas.get(id);
    const schema$ = known !== undefined ? of(known) : this.ask('source', () => source.schemaById(id)).pipe(tap((s) => this.schemas.set(id, s)));
    return schema$.pipe(concatMap((schema) => this.register(subject, schema)));
  }

  /**
   * The target's id of a source schema registered under the target's `subject`, the schemas it
   * refers to registered first, each under its own subject (what `mirrorflow schemas copy` does
   * with every version). Registering a schema the subject has returns its id.
   */
  register(subject: string, schema: RegisteredSchema): Observable<number> {
    const { target } = this.options;
    return this.targetReferences(schema.references, 0).pipe(
      map((references) => ({ schema: schema.schema, schemaType: schema.schemaType, references })),
      concatMap((registered) => this.ask('target', () => target.register(subject, registered))),
    );
  }

  /** The references with the versions the target has their schemas under, registering them first. */
  private targetReferences(references: readonly SchemaReference[], depth: number): Observable<SchemaReference[]> {
    if (references.length === 0) return of([]);
    if (depth >= MAX_REFERENCE_DEPTH) {
      return throwError(() => new SchemaRegistryRefusal(`schema references nest deeper than ${MAX_REFERENCE_DEPTH} (a cycle?)`, 0, undefined));
    }
    return from(references).pipe(
      concatMap((reference) => this.referenceVersion(reference, depth).pipe(map((version) => ({ ...reference, version })))),
      toArray(),
    );
  }

  private referenceVersion(reference: SchemaReference, depth: number): Observable<number> {
    const key = `${reference.subject}\0${reference.version}`;
    const known = this.referenceVersions.get(key);
    if (known !== undefined) return of(known);
    const { source, target } = this.options;
    const { subject } = reference;
    return this.ask('source', () => source.schemaByVersion(subject, reference.version)).pipe(
      concatMap((schema) => this.targetReferences(schema.references, depth + 1).pipe(map((references) => ({ ...schema, references })))),
      concatMap((schema) =>
        this.ask('target', () => target.register(subject, schema)).pipe(concatMap(() => this.ask('target', () => target.versionOf(subject, schema)))),
      ),
      tap((version) => this.referenceVersions.set(key, version)),
    );
  }

  /** One registry call, retried through outages of that registry (when they are tracked). */
  private ask<T>(registry: 'source' | 'target', call: () => Promise<T>): Observable<T> {
    const { outages, scheduler } = this.options;
    if (outages === undefined) return defer(call);
    return defer(call).pipe(retryThroughOutage<T>({ tracker: outages[registry], scheduler }));
  }

  private rewrite(batch: DecodedFlowBatch, refused: ReadonlyMap<string, string>): DecodedFlowBatch {
    const { sides, strict, path, errorTolerance } = this.options;
    let records: MirrorRecord[] | undefined;
    let failures: RecordFailure[] | undefined;
    for (let i = 0; i < batch.records.length; i++) {
      const record = batch.records[i]!;
      let out = record;
      let failure: string | undefined;
      for (const side of sides) {
        const bytes = record[side];
        if (bytes === null) continue;
        const id = confluentSchemaId(bytes);
        if (id === undefined) {
          if (!strict) continue;
          failure = `its ${side} is not in the Confluent wire format (magic byte 0 and a 4-byte schema id), and schema_registry.strict is on`;
          break;
        }
        const subject = `${record.topic}-${side}`;
        const targetId = this.ids.get(subject)?.get(id);
        if (targetId === undefined) {
          const reason = refused.get(`${subject}\0${id}`) ?? 'no answer';
          const writer = id < 0 ? this.options.writers?.[side] : undefined;
          failure =
            writer !== undefined
              ? `the ${SCHEMA_TYPE_LABELS[writer.schemaType]} schema the ${writer.name} converter wrote its ${side} with could not be registered under subject "${subject}": ${reason}`
              : `schema id ${id} of its ${side} could not be moved to subject "${subject}": ${reason}`;
          break;
        }
        if (targetId === id) continue;
        const moved = withConfluentSchemaId(bytes, targetId);
        // Not `[side]: moved`: a computed key makes a slow object of every record.
        out = side === 'key' ? { ...out, key: moved } : { ...out, value: moved };
      }
      if (failure !== undefined) {
        (failures ??= []).push({ record, error: new RecordFailedError(record.source, { ...STAGE, step: path }, failure) });
        records ??= batch.records.slice(0, i);
        if (errorTolerance === 'none') break;
      } else if (out !== record || records !== undefined) (records ??= batch.records.slice(0, i)).push(out);
    }
    if (records === undefined) return batch;
    if (failures === undefined) return { ...batch, records };
    if (errorTolerance === 'all') return { ...batch, records, deadLetters: [...(batch.deadLetters ?? []), ...failures] };
    // Tolerance none: the batch ends just before the failing record, as for a transform. The
    // records a transform dropped after it are counted as read: the flow stops here anyway.
    const failed = failures[0]!;
    const after = batch.records.length - records.length;
    return { ...batch, records, nextOffset: failed.record.source.offset, sourceRecords: batch.sourceRecords - after, failure: failed.error };
  }
}
