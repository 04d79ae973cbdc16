/** `flows[].buffer`: the memory bound of one flow. */
import { z } from '#zod';
import { positiveInt } from './fields';

export const bufferSchema = z
  .strictObject({
    max_bytes: positiveInt()
      .default(16777216)
      .describe('Bytes fetched from the source but not yet acknowledged by the target; fetching pauses at this bound (backpressure).'),
  })
  .describe('Memory bound of one flow.');
