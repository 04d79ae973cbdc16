/** `logging`: the process's logs. */
import { z } from '#zod';

export const loggingSchema = z
  .strictObject({
    level: z.enum(['error', 'warn', 'info', 'debug']).default('info').describe('Least severe level written.'),
    format: z.enum(['text', 'json']).default('text').describe('`text` for people, `json` for log collectors.'),
  })
  .describe('Process logs (stdout).');
