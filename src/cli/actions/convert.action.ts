import { readFile, writeFile } from 'node:fs/promises';
import { convertMm2Properties, isMm2PropertiesFile } from '../../config';
import { ConfigError, formatConfigIssue } from '../../core/errors';

export interface ConvertActionOptions {
  readonly file: string;
  /** Write the YAML here instead of stdout. */
  readonly output?: string;
  /** Load the file as run would and compare it with the YAML (needs its references readable). */
  readonly check: boolean;
}

/**
 * `mirrorflow convert mm2.properties`: prints the equivalent YAML pipeline (or writes it to
 * `--output`), its notes on stderr. Problems are reported as `validate` reports them (exit 78).
 */
export async function convertAction(
  options: ConvertActionOptions,
  print: (text: string) => void = (text) => process.stdout.write(text),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  if (!isMm2PropertiesFile(options.file)) {
    throw new ConfigError([
      {
        file: options.file,
        message: 'convert reads an MM2 driver file (*.properties)',
        hint: 'a YAML pipeline needs no conversion; check it with mirrorflow validate',
      },
    ]);
  }
  let text: string;
  try {
    text = await readFile(options.file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ file: options.file, message: 'cannot read the file' }], { cause: error });
  }
  const { yaml, warnings } = convertMm2Properties(text, options.file, { check: options.check });
  for (const warning of warnings) warn(`warning: ${formatConfigIssue(warning)}`);
  if (options.output === undefined) print(yaml);
  else await writeFile(options.output, yaml);
}
