import { type Command, Option } from 'commander';
import { PIPELINE_FILE } from './file-arguments';
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
    .argument('<file>', PIPELINE_FILE)
    .addOption(new Option('-c, --cluster <alias>', 'cluster to look at (repeatable)').argParser(collectValues).default([], 'every cluster of the pipeline'))
    .addOption(new Option('-u, --upstream <alias>', 'only this upstream cluster (repeatable)').argParser(collectValues).default([], 'all'))
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
