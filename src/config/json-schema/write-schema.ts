/**
 * Regenerates `config/pipeline.schema.json` from the zod schema:
 *   npx tsc -p . && node dist/src/config/json-schema/write-schema.js [OUTPUT]
 * The default output is found from this file's place in `dist/`, so it works from any folder.
 */
import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pipelineJsonSchemaText } from './pipeline-json-schema';

/** Repository root, seen from `dist/src/config/json-schema/`. */
export const committedSchemaPath = resolve(__dirname, '../../../../config/pipeline.schema.json');

if (require.main === module) {
  const output = process.argv[2] ?? committedSchemaPath;
  writeFileSync(output, pipelineJsonSchemaText());
  process.stdout.write(`Wrote ${output}\n`);
}
