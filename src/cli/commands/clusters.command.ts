import type { Command } from 'commander';
import { addToolCommonOptions, toolCommonOptions, type ToolCommonFlags } from './tool-options';
import { collectValues } from './collect-values';

interface UpstreamFlags extends ToolCommonFlags {
  readonly cluster: string[];
  readonly upstream: string[];
  readonly heartbeats: boolean;
}

/** `mirrorflow clusters upstream FILE [--cluster C]`: upstream clusters and hops from heartbeats. */
export function registerClustersCommand(program: Command): void {
  const clusters = program.command('clusters').description('What the clusters of a pipeline know about replication between them.');
  const upstream = clusters
    .command('upstream')
    .description(
      'List the clusters that replicate into a cluster and over how many hops, from its heartbeats topics ' +
        "(MM2's RemoteClusterUtils.upstreamClusters and replicationHops), with the newest heartbeat of each path.",
    )
    .argument('<file>', 'pipeline YAML file')
    .option('-c, --cluster <alias>', 'cluster to look at (repeatable; default: every cluster of the pipeline)', collectValues, [])
    .option('-u, --upstream <alias>', 'only this upstream cluster (repeatable; default: all)', collectValues, [])
    .option('--no-heartbeats', 'only look at topic names; do not read the heartbeats topics');
  addToolCommonOptions(upstream).action(async (file: string, flags: UpstreamFlags) =>
    (await import('../actions/clusters-upstream.action.js')).clustersUpstreamAction({
      ...toolCommonOptions(file, flags),
      clusters: flags.cluster,
      upstream: flags.upstream,
      heartbeats: flags.heartbeats,
    }),
  );
}
