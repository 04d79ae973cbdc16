import type { FlowConfig } from '../../../config';

/**
 * Replication writes a flow keeps in flight: `producer.max_in_flight`, or 1 where several are not
 * sound. Without idempotence a write sent again could land after a later one. Exactly-once writes
 * each slot's records in one transaction at a time. `offsets: preserve` first stores its markers
 * before each write, asynchronously (offset-preservation.ts), and the writer places a write's
 * records in their partitions' order when it starts, so a write whose markers took longer could
 * be placed behind a later one — at another offset than the source's.
 */
export function writesInFlight(flow: Pick<FlowConfig, 'producer' | 'delivery' | 'offsets'>): number {
  if (!flow.producer.idempotent || flow.delivery === 'exactly_once' || flow.offsets === 'preserve') return 1;
  return flow.producer.max_in_flight;
}
