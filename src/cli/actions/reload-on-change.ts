import { createHash } from 'node:crypto';
import { readFileSync, watch, type FSWatcher } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { LoadedPipeline, Pipeline, ReloadPlan } from '../../pipeline';
import { loadPipeline } from '../../pipeline/load-pipeline';
import type { PipelineConfig } from '../../config';
import { ConfigError, describeError, formatConfigIssue } from '../../core/errors';
import type { Logger } from '../../core/ports/logger';

/** Editors write a file in several steps (truncate, write, rename): one change is read once they are done. */
const SETTLE_MS = 300;

export interface ReloadOptions {
  /** The pipeline file, or the connector configs that make the pipeline together. */
  readonly file: string | readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly unknownKeys?: 'error' | 'warn';
  /** Watch the file; without it only SIGHUP reloads. */
  readonly watch: boolean;
  /** Applies the file's pipeline; by default `pipeline.reload` (the REST API's control keeps its paused connectors paused). */
  readonly apply?: (config: PipelineConfig, registry: LoadedPipeline['registry']) => Promise<ReloadPlan>;
}

/**
 * Applies the pipeline file again when it changes on disk or the process gets SIGHUP (as MM2's
 * users restart it, without the restart): the file is read and checked as at start; a valid one
 * is applied flow by flow (Pipeline.reload), an invalid one is reported with every problem and
 * changes nothing. The folder is watched rather than the file, so an editor that replaces the file
 * (writes a copy, renames it over) or a ConfigMap update is seen too. Returns the function that
 * stops watching.
 */
export function reloadOnChange(pipeline: Pipeline, options: ReloadOptions, logger: Logger): () => void {
  const paths = (typeof options.file === 'string' ? [options.file] : options.file).map((f) => resolve(f));
  const file = paths.length === 1 ? paths[0]! : paths;
  let applied = contentHash(paths);
  let settle: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const reload = async (reason: 'signal' | 'file changed'): Promise<void> => {
    const hash = contentHash(paths);
    // A save that changed nothing (or a touch) is no change; a signal always reads the file.
    if (reason === 'file changed' && hash !== undefined && hash === applied) return;
    let loaded;
    try {
      loaded = await loadPipeline(file, { set: options.set, pluginDirs: options.pluginDirs, unknownKeys: options.unknownKeys });
    } catch (error) {
      applied = hash;
      if (error instanceof ConfigError) {
        logger.error('The pipeline file has problems; nothing was changed.', {
          file: options.file,
          reason,
          problems: error.issues.map((issue) => formatConfigIssue(issue)),
        });
      } else logger.error('The pipeline file could not be read; nothing was changed.', { file: options.file, reason, error: describeError(error) });
      return;
    }
    applied = hash;
    for (const warning of loaded.warnings) logger.warn('Configuration note.', { note: formatConfigIssue(warning, 'warning') });
    try {
      const plan = await (options.apply ?? ((c, r) => pipeline.reload(c, r)))(loaded.config, loaded.registry);
      const changes = plan.added.length + plan.removed.length + plan.changed.length;
      logger.info(changes === 0 ? 'The pipeline file was read again; no flow changed.' : 'The changed pipeline file was applied.', {
        file: options.file,
        reason,
        added: plan.added,
        removed: plan.removed,
        changed: plan.changed,
        unchanged: plan.unchanged,
        ...(plan.notes.length > 0 ? { notes: plan.notes } : {}),
      });
    } catch (error) {
      logger.error('The changed pipeline file was not applied.', { file: options.file, reason, error: describeError(error) });
    }
  };

  /** One reload at a time; a change during one is read once it is done. */
  const request = (reason: 'signal' | 'file changed'): void => {
    if (running !== undefined) {
      again = true;
      return;
    }
    running = reload(reason).finally(() => {
      running = undefined;
      if (again) {
        again = false;
        request(reason);
      }
    });
  };

  const onSignal = (): void => request('signal');
  process.on('SIGHUP', onSignal);
  const watchers: FSWatcher[] = [];
  if (options.watch) {
    for (const folder of new Set(paths.map((p) => dirname(p)))) {
      try {
        // Any change in the folder is looked at, not only one named like the file: a Kubernetes
        // ConfigMap volume swaps a `..data` link, and the files' content tells whether they changed.
        const watcher = watch(folder, () => {
          clearTimeout(settle);
          settle = setTimeout(() => request('file changed'), SETTLE_MS);
        });
        watcher.on('error', (error) =>
          logger.warn('Watching the pipeline file failed; send SIGHUP to apply a change.', { folder, error: describeError(error) }),
        );
        watchers.push(watcher);
      } catch (error) {
        logger.warn('The pipeline file cannot be watched; send SIGHUP to apply a change.', { folder, error: describeError(error) });
      }
    }
  }
  return () => {
    process.off('SIGHUP', onSignal);
    clearTimeout(settle);
    for (const watcher of watchers) watcher.close();
  };
}

/** One hash of the files' contents together; undefined while one cannot be read (being replaced, say). */
function contentHash(paths: readonly string[]): string | undefined {
  const hash = createHash('sha256');
  try {
    for (const path of paths) hash.update(readFileSync(path)).update('\0');
  } catch {
    return undefined;
  }
  return hash.digest('hex');
}
