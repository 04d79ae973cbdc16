/**
 * The writer schemas of a flow's registry-backed converters (`avro`, …), fetched before the
 * transforms run: for each batch, the distinct schema ids of its registry-converted sides that
 * the side's converter does not know yet are read from the source registry, one after another
 * (an id two converters miss is asked once), so the transforms then read every record
 * synchronously. A batch whose ids are all known passes as it is (no promise, no request).
 *
 * An id the registry does not know (a refusal) is remembered as refused: the records with it fail
 * in the transform that reads them (errors.tolerance), naming the id. A registry that cannot be
 * reached is an outage, retried for as long as it takes, as schema-id-translation.ts does.
 */
import { type Observable, type SchedulerLike, catchError, concatMap, defer, from, ignoreElements, map, of, concat, throwError } from '#rxjs';
import { SchemaRegistryRefusal, type SchemaRegistryClient } from '../../core/ports/schema-registry';
import type { Logger } from '../../core/ports/logger';
import type { SourceBatch } from '../../core/record';
import type { RegistryConverter, RegistryConverters } from '../../plugins';
import type { OutageTracker } from '../status/outage-status';
import { retryThroughOutage } from '../operators/retry-through-outage';

export interface RegistrySchemaFetchOptions {
  readonly source: SchemaRegistryClient;
  /** The converters of the sides read in Confluent's wire format. */
  readonly converters: RegistryConverters;
  /** Source topics whose records are never in a registry's format (MM2's heartbeats): no schema is fetched for them. */
  readonly passes?: (sourceTopic: string) => boolean;
  readonly outage: OutageTracker;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

export class RegistrySchemaFetch {
  private readonly sides: readonly (readonly ['key' | 'value', RegistryConverter])[];

  constructor(private readonly options: RegistrySchemaFetchOptions) {
    this.sides = (['key', 'value'] as const).flatMap((side) => {
      const converter = options.converters[side];
      return converter === undefined ? [] : [[side, converter] as const];
    });
  }

  /** The batch, once the writer schemas of its records are known; an observable only when the registry must be asked. */
  prepare(batch: SourceBatch): SourceBatch | Observable<SourceBatch> {
    if (batch.kind !== 'records' || this.options.passes?.(batch.topic) === true) return batch;
    let missing: Map<number, Set<RegistryConverter>> | undefined;
    for (const record of batch.records) {
      for (const [side, converter] of this.sides) {
        const bytes = record[side];
        if (bytes === null || bytes.length < 5 || bytes[0] !== 0) continue;
        const id = bytes.readInt32BE(1);
        if (converter.knows(id)) continue;
        missing ??= new Map();
        let converters = missing.get(id);
        if (converters === undefined) missing.set(id, (converters = new Set()));
        converters.add(converter);
      }
    }
    if (missing === undefined) return batch;
    return concat(
      from(missing).pipe(
        concatMap(([id, converters]) => this.fetch(id, [...converters])),
        ignoreElements(),
      ),
      of(batch),
    );
  }

  private fetch(id: number, converters: readonly RegistryConverter[]): Observable<void> {
    const { source, outage, scheduler, logger } = this.options;
    return defer(() => source.schemaById(id)).pipe(
      retryThroughOutage({ tracker: outage, scheduler }),
      map((schema) => {
        for (const converter of converters) converter.addSchema(id, schema);
        logger.info('Writer schema read.', { schemaId: id, schemaType: schema.schemaType, registry: source.url });
      }),
      catchError((error: unknown) => {
        if (!(error instanceof SchemaRegistryRefusal)) return throwError(() => error);
        for (const converter of converters) converter.refuse(id, error.message);
        return of(undefined);
      }),
    );
  }
}
