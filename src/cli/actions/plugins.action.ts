import { relative } from 'node:path';
import { MirrorflowError } from '../../core/errors';
import { listPlugins, scaffoldPlugin, testPluginContracts, type CatalogEntry } from '../../pipeline';
import { textTable } from './text-table';

type Print = (text: string) => void;
const stdout: Print = (text) => process.stdout.write(text);

export async function pluginsListAction(
  options: { readonly file?: string; readonly pluginDirs: readonly string[]; readonly json: boolean },
  print: Print = stdout,
): Promise<void> {
  const entries = await listPlugins({ ...(options.file === undefined ? {} : { file: options.file }), pluginDirs: options.pluginDirs });
  print(options.json ? `${JSON.stringify(entries, null, 2)}\n` : formatCatalog(entries));
}

/** Each transform: name, where it came from, its summary and its options; or why it cannot be used. */
export function formatCatalog(entries: readonly CatalogEntry[]): string {
  const blocks = entries.map((entry) => {
    const lines = [`${entry.name}  (${entry.source}${entry.from === undefined ? '' : `: ${entry.from}`})`];
    if (entry.problem !== undefined) lines.push(`  BROKEN: ${entry.problem}`);
    if (entry.summary !== undefined) lines.push(`  ${entry.summary}`);
    if (entry.options !== undefined && entry.options.length > 0) {
      const rows = entry.options.map((o) => [
        `    ${o.name}`,
        o.type,
        o.required ? 'required' : o.default === undefined ? '' : `default ${o.default}`,
        o.description,
      ]);
      lines.push(textTable(rows).trimEnd());
    } else if (entry.options !== undefined) lines.push('    (no options)');
    return lines.join('\n');
  });
  const broken = entries.filter((e) => e.problem !== undefined).length;
  return `${blocks.join('\n\n')}\n\n${entries.length} transforms${broken === 0 ? '' : `, ${broken} broken`}\n`;
}

export function pluginsNewAction(options: { readonly name: string; readonly dir: string }, print: Print = stdout): void {
  const { folder, files } = scaffoldPlugin(options);
  print(`Created ${folder}:\n${files.map((f) => `  ${relative(process.cwd(), f)}\n`).join('')}`);
  const shown = relative(process.cwd(), folder);
  print(`Try it: mirrorflow plugins check ${shown} and mirrorflow plugins list --plugin-dir ${relative(process.cwd(), options.dir) || '.'}\n`);
  print(`Its own tests: NODE_PATH="$(npm root -g)" node --test ${shown}/ (mirrorflow installed with npm link or npm install -g)\n`);
}

export function pluginsTestAction(options: { readonly path: string; readonly json: boolean }, print: Print = stdout): void {
  const results = testPluginContracts(options.path);
  if (options.json) print(`${JSON.stringify(results, null, 2)}\n`);
  else {
    for (const result of results) {
      print(`${result.plugin} (${result.folder})\n`);
      for (const c of result.checks)
        print(`  ${c.result === 'pass' ? 'ok  ' : c.result === 'skip' ? 'skip' : 'FAIL'}  ${c.check}${c.detail === undefined ? '' : `: ${c.detail}`}\n`);
    }
  }
  const failed = results.filter((r) => r.checks.some((c) => c.result === 'fail')).map((r) => r.plugin);
  if (failed.length > 0) throw new MirrorflowError(`the plugin contract failed for ${failed.join(', ')}`);
}
