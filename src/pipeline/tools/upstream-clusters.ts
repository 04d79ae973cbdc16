import type { HeartbeatSeen } from './mirror-client';
import type { PipelineTools } from './pipeline-tools';
import { countHopsForTopic } from './remote-topology';

export interface UpstreamRequest {
  /** The clusters to look at; default every cluster of the pipeline. */
  readonly clusters?: readonly string[];
  /** Also read the heartbeats topics for the time of the newest heartbeat on each path. */
  readonly heartbeats: boolean;
  readonly timeoutMs?: number;
}

export interface UpstreamCluster {
  readonly alias: string;
  /** RemoteClusterUtils.replicationHops: fewest hops over the heartbeats topics. */
  readonly hops: number;
  /** The heartbeats topic of that shortest path, e.g. `primary.heartbeats`. */
  readonly via: string;
  /** Newest heartbeat on `via` (epoch ms), when heartbeats were read and the topic has one. */
  readonly lastHeartbeat?: number;
}

export interface ClusterUpstream {
  readonly cluster: string;
  readonly heartbeatTopics: readonly string[];
  /** RemoteClusterUtils.upstreamClusters, each with its hop count; by hops, then alias. */
  readonly upstream: readonly UpstreamCluster[];
  /** Every heartbeat path seen (when heartbeats were read): topic, source -> target, newest time. */
  readonly heartbeats?: readonly HeartbeatSeen[];
}

/**
 * Which clusters replicate into each cluster, and over how many hops, from its heartbeats topics:
 * MM2's `upstreamClusters` and `replicationHops`, plus how fresh each path's heartbeats are.
 */
export async function describeUpstream(tools: PipelineTools, request: UpstreamRequest): Promise<ClusterUpstream[]> {
  const clusters = request.clusters && request.clusters.length > 0 ? [...request.clusters] : tools.clusterAliases;
  for (const c of clusters) tools.requireCluster(c, '--cluster');
  const reports: ClusterUpstream[] = [];
  for (const cluster of clusters) {
    await tools.checkReachable(cluster);
    const client = tools.mirrorClient(cluster);
    const topics = await client.heartbeatTopics();
    const aliases = await client.upstreamClusters();
    const heartbeats = request.heartbeats ? await client.lastHeartbeats(topics, { timeoutMs: request.timeoutMs }) : undefined;
    const upstream = aliases.map((alias): UpstreamCluster => {
      let hops = -1;
      let via = '';
      for (const topic of topics) {
        const h = countHopsForTopic(client.policy, topic, alias);
        if (h !== -1 && (hops === -1 || h < hops)) [hops, via] = [h, topic];
      }
      const times = (heartbeats ?? []).filter((s) => s.topic === via).map((s) => s.timestamp);
      return { alias, hops, via, ...(times.length > 0 ? { lastHeartbeat: Math.max(...times) } : {}) };
    });
    upstream.sort((a, b) => a.hops - b.hops || (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
    reports.push({ cluster, heartbeatTopics: topics, upstream, ...(heartbeats ? { heartbeats } : {}) });
  }
  return reports;
}
