import { writeFile } from 'node:fs/promises';
import { convertConnectorConfigs, convertMm2Properties, isConnectorConfig, isMm2PropertiesFile, readTexts } from '../../config';
import { ConfigError, formatConfigIssue } from '../../core/errors';

export interface ConvertActionOptions {
  /** An MM2 driver file, or MM2 connector configs that make one pipeline together. */
  readonly file: string | readonly string[];
  /** Write the YAML here instead of stdout. */
  readonly output?: string;
  /** Load the file as run would and compare it with the YAML (needs its references readable). */
  readonly check: boolean;
}

/**
 * `mirrorflow convert mm2.properties` (or connector configs): prints the equivalent YAML pipeline (or writes it to
 * `--output`), its notes on stderr. Problems are reported as `validate` reports them (exit 78).
 */
export async function convertAction(
  options: ConvertActionOptions,
  print: (text: string) => void = (text) => process.stdout.write(text),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const files = typeof options.file === 'string' ? [options.file] : options.file;
  const texts = await readTexts(files);
  const [first] = texts;
  const connectors = texts.length > 1 || isConnectorConfig(first!.file, first!.text);
  if (!connectors && !isMm2PropertiesFile(first!.file)) {
    throw new ConfigError([
      {
        file: first!.file,
        message: 'convert reads an MM2 driver file (*.properties) or MM2 connector configs (*.properties, *.json)',
        hint: 'a YAML pipeline needs no conversion; check it with mirrorflow validate',
      },
    ]);
  }
  const { yaml, warnings } = connectors
    ? convertConnectorConfigs(texts, { check: options.check })
    : convertMm2Properties(first!.text, first!.file, { check: options.check });
  for (const warning of warnings) warn(formatConfigIssue(warning, 'warning'));
  if (options.output === undefined) print(yaml);
  else await writeFile(options.output, yaml);
}
