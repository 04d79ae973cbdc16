/**
 * Regenerates everything generated from the configuration code (`npm run docs`):
 * `config/pipeline.schema.json`, and the configuration and transform references in README.md.
 * Paths are found from this file's place in `dist/`, so it works from any folder.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { withConfigReference } from './config-reference';
import { pipelineJsonSchemaText } from '../json-schema/pipeline-json-schema';
import { withTransformReference } from './transform-reference';
import { committedSchemaPath } from '../json-schema/write-schema';

/** The repository's README, seen from `dist/src/config/reference/`. */
export const readmePath = resolve(__dirname, '../../../../README.md');

if (require.main === module) {
  writeFileSync(committedSchemaPath, pipelineJsonSchemaText());
  writeFileSync(readmePath, withTransformReference(withConfigReference(readFileSync(readmePath, 'utf8'))));
  process.stdout.write(`Wrote ${committedSchemaPath} and the configuration and transform references in ${readmePath}\n`);
}
