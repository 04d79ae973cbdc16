/** `flows[].transforms[]`: one transform step; its plugin's own schema checks its options. */
import { z } from '#zod';

export const transformStepSchema = z
  .looseObject({
    type: z.string().min(1).describe('Name of a built-in or custom transform plugin.'),
  })
  .describe("One transform: `type` plus that plugin's own options, which its schema checks.");
