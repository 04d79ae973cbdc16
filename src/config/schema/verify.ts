/** `flows[].verify`: continuous verification of the copy while the flow runs. */
import { z } from '#zod';
import { positiveInt } from './fields';

export const verifySchema = z
  .strictObject({
    enabled: z
      .boolean()
      .default(false)
      .describe(
        'Compare windows of every replicated partition with their copy on the target while the flow runs, as `mirrorflow verify` does, within `records_per_interval`; each process verifies the partitions it replicates, up to what the target acknowledged; what it finds is on `/status`, the status page and the `mirrorflow_verify_*` metrics. Off by default: it reads both clusters beyond what replication reads, and needs READ on the remote topics, which a least-privilege target principal lacks (MM2 never reads them), and the offset syncs (`offset_syncs.enabled`) or `offsets: preserve` to find where a window is copied. A mirrorflow extension; in mm2.properties: `mirrorflow.verify.enabled`.',
      ),
    interval_ms: positiveInt().default(60_000).describe('How often a window is verified, ms. In mm2.properties: `mirrorflow.verify.interval.ms`.'),
    records_per_interval: positiveInt()
      .default(10_000)
      .describe(
        'The read budget: source records compared per interval, over all partitions in turn, the most recently copied first (about as many target records are read). Records copied faster than that are skipped, and counted as not verified. In mm2.properties: `mirrorflow.verify.records.per.interval`.',
      ),
  })
  .describe('Continuous verification: the copy compared with its source in windows, within a read budget (docs/verify.md: Continuous verification).');
