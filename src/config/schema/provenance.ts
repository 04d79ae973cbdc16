/** `flows[].provenance`: the provenance header that keeps records from going round (docs/active-active.md). */
import { z } from '#zod';
import { positiveInt } from './fields';

/** The section as a flow has it (off), or a link (on). */
export const provenanceSchemaWith = (enabledByDefault: boolean) =>
  z
    .strictObject({
      enabled: z
        .boolean()
        .default(enabledByDefault)
        .describe(
          "Add a provenance header (`mirrorflow.provenance`) to every record written: its origin cluster, topic, partition and offset and every cluster it has been written to. The flow never writes a record into a cluster its header names, so flows that keep topic names (the identity policy) can run both ways, or round a ring, without copying a record back; and a record that reaches the target through two paths of the pipeline (a diamond) is written once. The header is the only change to a record (the producer's headers keep their order, duplicates and null values); batches are decoded and encoded again instead of forwarded (`batching.forward_batches`). Default true in `links`. Confluent Replicator: `provenance.header.enable` (false), which mm2.properties files may set too.",
        ),
      diamond_window: positiveInt()
        .default(100000)
        .describe(
          "How much of what this flow delivered it remembers, so that a second copy of an origin record arriving at its target through another flow of the pipeline (A→B→D and A→C→D) is dropped: ranges of origin offsets, one per run of an origin partition's records this flow delivered before any other flow (so at least this many records, usually far more), about 100 bytes each. Past it the oldest range is forgotten; a copy older than what is remembered is written and counted (`mirrorflow_records_unchecked_total`).",
        ),
    })
    .describe(
      'Provenance headers, for active-active replication with kept topic names (docs/active-active.md). A mirrorflow extension; Confluent Replicator: `provenance.header.enable`.',
    );

export const provenanceSchema = provenanceSchemaWith(false);
