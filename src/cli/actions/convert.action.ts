import { existsSync, realpathSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { isConnectorConfig, isMm2PropertiesFile, readTexts } from '../../config';
import { convertConnectorConfigs, convertMm2Properties } from '../../config/mm2/convert-mm2-properties';
import { ConfigError, formatConfigIssue } from '../../core/errors';
import { ToolUsageError } from '../../pipeline/tools/tool-errors';

export interface ConvertActionOptions {
  /** An MM2 driver file, or MM2 connector configs that make one pipeline together. */
  readonly file: string | readonly string[];
  /** Write the YAML here instead of stdout. */
  readonly output?: string;
  /** Load the file as run would and compare it with the YAML (needs its references readable). */
  readonly check: boolean;
  /** Replace `output` when it exists (never an input file). */
  readonly force?: boolean;
  readonly unknownKeys?: 'error' | 'warn';
}

/**
 * `mirrorflow convert mm2.properties` (or connector configs): prints the equivalent YAML pipeline
 * (or writes it to `--output`, never over an input, nor over another file without `--force`), its
 * notes on stderr, and the environment variables to set for the secrets the file held in the
 * clear. Problems are reported as `validate` reports them (exit 78).
 */
export async function convertAction(
  options: ConvertActionOptions,
  print: (text: string) => void = (text) => process.stdout.write(text),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const files = typeof options.file === 'string' ? [options.file] : options.file;
  const output = options.output === undefined ? undefined : resolve(options.output);
  if (output !== undefined) refuseToOverwrite(output, files, options.force === true);
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
  // Relative paths are written relative to where the YAML goes: the output's folder, or here for stdout.
  const convertOptions = {
    check: options.check,
    outputDir: output === undefined ? process.cwd() : dirname(output),
    ...(options.unknownKeys === undefined ? {} : { unknownKeys: options.unknownKeys }),
  };
  const { yaml, warnings, secrets } = connectors
    ? convertConnectorConfigs(texts, convertOptions)
    : convertMm2Properties(first!.text, first!.file, convertOptions);
  for (const warning of warnings) warn(formatConfigIssue(warning, 'warning'));
  if (secrets.length > 0) {
    const width = Math.max(...secrets.map((s) => s.name.length));
    const held = secrets.length === 1 ? 'a secret' : `${secrets.length} secrets`;
    warn(
      `mirrorflow: ${files.join(', ')} held ${held} in the clear; the YAML reads ${secrets.length === 1 ? 'it' : 'them'} from the environment. Set before running it:`,
    );
    for (const secret of secrets) warn(`  ${secret.name.padEnd(width)}  ${secret.from}`);
  }
  if (output === undefined) print(yaml);
  // `wx`: a file that appeared since the check above is not replaced either.
  else await writeFile(output, yaml, { flag: options.force === true ? 'w' : 'wx' });
}

/** An output that is one of the inputs (by its real path), or that exists while `force` is off, is refused before anything is read. */
function refuseToOverwrite(output: string, inputs: readonly string[], force: boolean): void {
  const real = (path: string): string => (existsSync(path) ? realpathSync(path) : resolve(path));
  const input = inputs.find((file) => real(file) === real(output));
  if (input !== undefined)
    throw new ToolUsageError(`--output ${output} is the input file ${input}; convert never writes over its input (choose another --output).`);
  if (!force && existsSync(output)) throw new ToolUsageError(`${output} exists; add --force to replace it.`);
}
