import { loadPipeline } from '../../pipeline/load-pipeline';
import { copySchemas, SchemaCopyRefusedError, type SchemaCopyResult } from '../../pipeline/tools';

export interface SchemasCopyOptions {
  readonly files: readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly flow?: string;
  readonly dryRun: boolean;
  readonly json: boolean;
}

/**
 * `mirrorflow schemas copy`: copies, prints per subject what was copied (or, with --dry-run,
 * what would be), and ends with SchemaCopyRefusedError (exit 65) when the target refused versions.
 */
export async function schemasCopyAction(options: SchemasCopyOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const { config } = await loadPipeline(options.files.length === 1 ? options.files[0]! : options.files, {
    set: options.set,
    pluginDirs: options.pluginDirs,
  });
  const result = await copySchemas(config, { ...(options.flow === undefined ? {} : { flow: options.flow }), dryRun: options.dryRun });
  out.write(options.json ? `${JSON.stringify(result, null, 2)}\n` : renderSchemaCopy(result));
  if (result.refusedCount > 0) {
    throw new SchemaCopyRefusedError(`the target registry refused ${result.refusedCount} version(s); the others were copied (see above)`);
  }
}

export function renderSchemaCopy(result: SchemaCopyResult): string {
  let text = '';
  for (const flow of result.flows) {
    text += `flow ${flow.flow}: ${flow.source} -> ${flow.target}${result.dryRun ? ' (dry run: nothing registered)' : ''}\n`;
    if (flow.subjects.length === 0) text += '  no subject of the source registry belongs to a topic of this flow\n';
    for (const s of flow.subjects) {
      const copied = s.versions.filter((v) => v.targetId !== undefined).length;
      const count = result.dryRun ? `${s.versions.length} version(s) to copy` : `${copied} of ${s.versions.length} version(s) copied`;
      text += `  ${s.subject} -> ${s.targetSubject}: ${count}\n`;
      for (const v of s.versions) {
        const to = v.refused !== undefined ? `REFUSED: ${v.refused}` : v.targetId === undefined ? '' : ` -> id ${v.targetId}`;
        text += `    version ${v.version}: id ${v.sourceId}${v.refused !== undefined ? ` ${to}` : to}\n`;
      }
    }
  }
  return text;
}
