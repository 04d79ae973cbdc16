import type { HeartbeatSeen } from './mirror-client';
import type { PipelineTools } from './pipeline-tools';
import { countHopsForTopic } from './remote-topology';

export interface UpstreamRequest {
  /** The clusters to look at; default every cluster of the pipeline. */
  readonly clusters?: readonly string[];
  /** Only these upstream clusters (default: all). */
  readonly upstream?: readonly string[];
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
  /**
   * When heartbeats were read: the newest heartbeat per path on the topics read, which are the
   * shortest path from each upstream cluster listed and this cluster's own heartbeats topic.
   */
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
  const only = request.upstream && request.upstream.length > 0 ? new Set(request.upstream) : undefined;
  for (const cluster of clusters) {
    await tools.checkReachable(cluster);
    const client = tools.mirrorClient(cluster);
    const topics = await client.heartbeatTopics();
    const upstream = (await client.upstreamClusters())
      .filter((alias) => only === undefined || only.has(alias))
      .map((alias): UpstreamCluster => {
        let hops = -1;
        let via = '';
        for (const topic of topics) {
          const h = countHopsForTopic(client.policy, topic, alias);
          if (h !== -1 && (hops === -1 || h < hops)) [hops, via] = [h, topic];
        }
        return { alias, hops, via };
      });
    let heartbeats: HeartbeatSeen[] | undefined;
    if (request.heartbeats) {
      // Only the topics the listing needs: a cluster can hold thousands of heartbeats topics.
      const local = client.policy.heartbeatsTopic();
      const wanted = [...new Set([...upstream.map((u) => u.via), ...(topics.includes(local) ? [local] : [])])];
      heartbeats = (await client.lastHeartbeats(wanted, { timeoutMs: request.timeoutMs })).filter(
        (h) => only === undefined || h.topic !== local || only.has(h.sourceClusterAlias),
      );
      for (const [i, u] of upstream.entries()) {
        const times = heartbeats.filter((h) => h.topic === u.via).map((h) => h.timestamp);
        if (times.length > 0) upstream[i] = { ...u, lastHeartbeat: Math.max(...times) };
      }
    }
    upstream.sort((a, b) => a.hops - b.hops || (a.alias < b.alias ? -1 : a.alias > b.alias ? 1 : 0));
    reports.push({ cluster, heartbeatTopics: topics, upstream, ...(heartbeats ? { heartbeats } : {}) });
  }
  return reports;
}
