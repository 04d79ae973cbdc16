/**
 * The `avro` converter's writer schemas, fetched before the transforms run: for each batch, the
 * distinct schema ids of its avro sides that the flow's AvroConverter does not know yet are read
 * from the source registry, one after another, so the transforms then read every record
 * synchronously. A batch whose ids are all known passes as it is (no promise, no request).
 *
 * An id the registry does not know (a refusal) is remembered as refused: the records with it fail
 * in the transform that reads them (errors.tolerance), naming the id. A registry that cannot be
 * reached is an outage, retried for as long as it takes, as schema-id-translation.ts does.
 */
import { type Observable, type SchedulerLike, catchError, concatMap, defer, from, ignoreElements, map, of, concat, throwError } from 'rxjs';
import { SchemaRegistryRefusal, type SchemaRegistryClient } from '../core/ports/schema-registry';
import type { Logger } from '../core/ports/logger';
import type { SourceBatch } from '../core/record';
import type { AvroConverter } from '../plugins';
import type { OutageTracker } from './outage-status';
import { retryThroughOutage } from './operators/retry-through-outage';

export interface AvroSchemaFetchOptions {
  readonly source: SchemaRegistryClient;
  readonly converter: AvroConverter;
  /** The sides the flow's converter reads as Avro. */
  readonly sides: readonly ('key' | 'value')[];
  /** Source topics whose records are never Avro (MM2's heartbeats): no schema is fetched for them. */
  readonly passes?: (sourceTopic: string) => boolean;
  readonly outage: OutageTracker;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

export class AvroSchemaFetch {
  constructor(private readonly options: AvroSchemaFetchOptions) {}

  /** The batch, once the writer schemas of its records are known; an observable only when the registry must be asked. */
  prepare(batch: SourceBatch): SourceBatch | Observable<SourceBatch> {
    if (batch.kind !== 'records' || this.options.passes?.(batch.topic) === true) return batch;
    const { converter, sides } = this.options;
    let missing: Set<number> | undefined;
    for (const record of batch.records) {
      for (const side of sides) {
        const bytes = record[side];
        if (bytes === null || bytes.length < 5 || bytes[0] !== 0) continue;
        const id = bytes.readInt32BE(1);
        if (!converter.knows(id)) (missing ??= new Set()).add(id);
      }
    }
    if (missing === undefined) return batch;
    return concat(
      from(missing).pipe(
        concatMap((id) => this.fetch(id)),
        ignoreElements(),
      ),
      of(batch),
    );
  }

  private fetch(id: number): Observable<void> {
    const { source, converter, outage, scheduler, logger } = this.options;
    return defer(() => source.schemaById(id)).pipe(
      retryThroughOutage({ tracker: outage, scheduler }),
      map((schema) => {
        converter.addSchema(id, schema);
        logger.info('Avro writer schema read.', { schemaId: id, registry: source.url });
      }),
      catchError((error: unknown) => {
        if (!(error instanceof SchemaRegistryRefusal)) return throwError(() => error);
        converter.refuse(id, error.message);
        return of(undefined);
      }),
    );
  }
}
