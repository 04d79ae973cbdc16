/** `flows[].progress`: where replication resumes after a restart. */
import { z } from 'zod';
import { positiveInt } from './fields';

export const progressSchema = z
  .strictObject({
    flush_interval_ms: positiveInt()
      .default(5000)
      .describe('How often replicated source offsets are stored, ms; only acknowledged records count. MM2: `offset.flush.interval.ms` (60000).'),
  })
  .describe('Where replication resumes after a restart.');
