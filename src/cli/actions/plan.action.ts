import { ClusterUnavailableError, MirrorflowError, formatConfigIssue } from '../../core/errors';
import { silentLogger } from '../../core/ports/logger';
import { createKafkaClients, formatPlan, loadPipeline, planPipeline, toClusterConnection } from '../../pipeline';

export interface PlanOptions {
  /** A pipeline file, or MM2 connector configs that make one pipeline together. */
  readonly file: string | readonly string[];
  readonly set: readonly string[];
  readonly pluginDirs: readonly string[];
  readonly json: boolean;
}

/**
 * `mirrorflow plan FILE`: loads the pipeline as run does, asks the clusters read-only what each
 * flow would do, prints it (text or JSON), then fails if the plan found problems: exit 69 when a
 * cluster is unreachable, 1 for any other problem, so scripts can gate a deployment on it.
 */
export async function planAction(
  options: PlanOptions,
  print: (text: string) => void = (text) => process.stdout.write(text),
  warn: (line: string) => void = (line) => process.stderr.write(`${line}\n`),
): Promise<void> {
  const { config, warnings } = await loadPipeline(options.file, { set: options.set, pluginDirs: options.pluginDirs });
  for (const warning of warnings) warn(formatConfigIssue(warning, 'warning'));
  // The plan reports connection problems itself; client logs would only repeat them.
  const clients = createKafkaClients(Object.values(config.clusters).map(toClusterConnection), silentLogger, `mirrorflow-${config.name}-plan`);
  let plan;
  try {
    plan = await planPipeline(config, clients);
  } finally {
    await clients.close();
  }
  print(options.json ? `${JSON.stringify(plan, null, 2)}\n` : formatPlan(plan));
  const unreachable = plan.clusters.find((c) => !c.reachable);
  if (unreachable !== undefined) throw new ClusterUnavailableError(unreachable.alias, 'cannot be reached; the plan above is incomplete');
  if (plan.problemCount > 0) throw new MirrorflowError(`The plan found ${plan.problemCount} problem${plan.problemCount === 1 ? '' : 's'}; see above.`);
}
