import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { defineTransform, z } from './api';
import { transformOptions } from './option-docs';

describe('transformOptions', () => {
  it('lists options with type, required, default and description, nested ones by dotted path', () => {
    const definition = defineTransform({
      name: 'sample',
      summary: 'A sample.',
      configSchema: z.strictObject({
        fields: z.array(z.string()).min(1).describe('Fields to mask.'),
        action: z.enum(['mask', 'remove']).default('mask').describe('What to do.'),
        replacement: z.union([z.string(), z.number(), z.null()]).optional(),
        when: z
          .strictObject({ has_header: z.string().describe('A header key.') })
          .optional()
          .describe('Conditions.'),
      }),
      create: () => ({ apply: (r) => r }),
    });
    assert.deepEqual(transformOptions(definition), [
      { name: 'fields', type: 'list of string', required: true, description: 'Fields to mask.' },
      { name: 'action', type: '"mask" | "remove"', required: false, default: '"mask"', description: 'What to do.' },
      { name: 'replacement', type: 'string | number | null', required: false, description: '' },
      { name: 'when', type: 'map', required: false, description: 'Conditions.' },
      { name: 'when.has_header', type: 'string', required: true, description: 'A header key.' },
    ]);
  });
});
