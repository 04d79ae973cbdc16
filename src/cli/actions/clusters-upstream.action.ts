import { describeUpstream, type ClusterUpstream } from '../../pipeline/tools';
import { textTable, timeWithAge } from './text-table';
import { withPipelineTools, type ToolCommonOptions } from './tool-session';

export interface ClustersUpstreamOptions extends ToolCommonOptions {
  /** Default: every cluster of the pipeline. */
  readonly clusters: readonly string[];
  /** Only these upstream clusters; default all. */
  readonly upstream: readonly string[];
  /** Read the heartbeats topics for the newest heartbeat of each path. */
  readonly heartbeats: boolean;
}

/**
 * `mirrorflow clusters upstream FILE [--cluster C]`: the clusters that replicate into C and over
 * how many hops (RemoteClusterUtils.upstreamClusters / replicationHops), with heartbeat ages.
 */
export async function clustersUpstreamAction(options: ClustersUpstreamOptions, out: NodeJS.WritableStream = process.stdout): Promise<void> {
  const reports = await withPipelineTools(options, (tools) =>
    describeUpstream(tools, { clusters: options.clusters, upstream: options.upstream, heartbeats: options.heartbeats, timeoutMs: options.timeoutMs }),
  );
  out.write(options.json ? `${JSON.stringify(reports, null, 2)}\n` : reports.map((r) => renderUpstream(r)).join('\n'));
}

export function renderUpstream(report: ClusterUpstream, now: number = Date.now()): string {
  let text = `Cluster ${report.cluster}\n`;
  if (report.upstream.length === 0) {
    text +=
      report.heartbeatTopics.length === 0
        ? '  No heartbeats topics: no flow into this cluster has emitted heartbeats yet.\n'
        : '  No upstream clusters (of those asked for): its heartbeats topics name none.\n';
    const direct = [
      ...new Set((report.heartbeats ?? []).filter((h) => h.topic === 'heartbeats' && h.targetClusterAlias === report.cluster).map((h) => h.sourceClusterAlias)),
    ];
    if (direct.length > 0) {
      text +=
        `  (${direct.join(', ')} ${direct.length === 1 ? 'writes' : 'write'} heartbeats here directly, but MM2's tools count a cluster as upstream only through a replicated ` +
        `heartbeats topic such as ${direct[0]}.heartbeats, which needs a heartbeats topic on ${direct[0]} itself.)\n`;
    }
  } else {
    const rows = [['UPSTREAM', 'HOPS', 'VIA', ...(report.heartbeats ? ['LAST HEARTBEAT'] : [])]];
    for (const u of report.upstream) {
      rows.push([u.alias, String(u.hops), u.via, ...(report.heartbeats ? [u.lastHeartbeat === undefined ? '-' : timeWithAge(u.lastHeartbeat, now)] : [])]);
    }
    text += indent(textTable(rows));
  }
  if (report.heartbeats && report.heartbeats.length > 0) {
    text += '  Heartbeats received:\n';
    const rows = [['TOPIC', 'FROM', 'TO', 'LAST HEARTBEAT']];
    for (const h of report.heartbeats) rows.push([h.topic, h.sourceClusterAlias, h.targetClusterAlias, timeWithAge(h.timestamp, now)]);
    text += indent(indent(textTable(rows)));
  }
  return text;
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => (line === '' ? line : `  ${line}`))
    .join('\n');
}
