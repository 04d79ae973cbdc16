/**
 * Regenerates everything generated from the code (`npm run docs`): `config/pipeline.schema.json`,
 * the configuration reference (docs/configuration.md), the built-in transforms of
 * docs/transforms.md, and the command-line reference (docs/cli.md). Paths are found from each
 * generator's place in `dist/`, so it works from any folder.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { configurationDocPath, configurationPage } from '../config/reference/config-reference';
import { transformsDocPath, withTransformReference } from '../config/reference/transform-reference';
import { pipelineJsonSchemaText } from '../config/json-schema/pipeline-json-schema';
import { committedSchemaPath } from '../config/json-schema/write-schema';
import { cliDocPath, cliPage } from './cli-reference';

if (require.main === module) {
  writeFileSync(committedSchemaPath, pipelineJsonSchemaText());
  writeFileSync(configurationDocPath, configurationPage());
  writeFileSync(transformsDocPath, withTransformReference(readFileSync(transformsDocPath, 'utf8')));
  writeFileSync(cliDocPath, cliPage());
  process.stdout.write(`Wrote ${[committedSchemaPath, configurationDocPath, transformsDocPath, cliDocPath].join(', ')}\n`);
}
