import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { pipelineJsonSchema, pipelineJsonSchemaText } from './pipeline-json-schema';
import type { JsonSchema } from './schema-navigator';
import { committedSchemaPath } from './write-schema';

describe('pipelineJsonSchema', () => {
  it('matches the committed config/pipeline.schema.json (regenerate: npx tsc -p . && node dist/src/config/json-schema/write-schema.js)', () => {
    assert.equal(readFileSync(committedSchemaPath, 'utf8'), pipelineJsonSchemaText());
  });

  it('describes the file side: only what has no default is required, unknown keys are rejected', () => {
    const schema = pipelineJsonSchema();
    const flows = schema.properties!['flows']!;
    const flow = flows.items as JsonSchema & { required?: string[] };
    // A pipeline has flows, links or both: neither is required by the schema (the loader asks for one).
    assert.deepEqual((schema as { required?: string[] }).required, ['clusters']);
    assert.deepEqual(flow.required, ['source', 'target']);
    const link = schema.properties!['links']!.items as JsonSchema & { required?: string[] };
    assert.deepEqual(link.required, ['clusters']);
    assert.equal(link.properties!['provenance']!.properties!['enabled']!.default, true);
    assert.equal(flow.properties!['provenance']!.properties!['enabled']!.default, false);
    assert.equal(flow.additionalProperties, false);
    assert.equal(flow.properties!['batching']!.properties!['max_records']!.default, 10000);
  });

  it('documents every key, naming the MM2 setting where there is one', () => {
    const undocumented: string[] = [];
    const visit = (schema: JsonSchema, path: string): void => {
      for (const [key, property] of Object.entries(schema.properties ?? {})) {
        const alternatives = [...(property.oneOf ?? []), ...(property.anyOf ?? [])];
        const described = property.description !== undefined || alternatives.some((a) => a.description !== undefined);
        if (!described) undocumented.push(`${path}.${key}`);
        visit(property, `${path}.${key}`);
        for (const alternative of property.oneOf ?? []) visit(alternative, `${path}.${key}`);
        if (property.items) visit(property.items, `${path}.${key}[]`);
        if (typeof property.additionalProperties === 'object') visit(property.additionalProperties, `${path}.${key}.*`);
      }
    };
    visit(pipelineJsonSchema(), '');
    assert.deepEqual(undocumented, []);
    assert.match(JSON.stringify(pipelineJsonSchema()), /MM2: `refresh\.topics\.interval\.seconds`/);
  });
});
