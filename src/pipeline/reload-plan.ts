import { isDeepStrictEqual as same } from 'node:util';
import type { FlowConfig, PipelineConfig } from '../config';

/** What applying a changed pipeline file does, flow by flow (flows named `source->target`). */
export interface ReloadPlan {
  /** Flows that start. */
  readonly added: readonly string[];
  /** Flows that drain and stop. */
  readonly removed: readonly string[];
  /** Flows that drain, store their progress and start again with their new settings. */
  readonly changed: readonly string[];
  /** Flows that go on without a pause. */
  readonly unchanged: readonly string[];
  /** Why nothing can be applied without a restart; absent when the change can be applied. */
  readonly refused?: string;
  /** Changes that take effect only at the next start (logging, the HTTP listener). */
  readonly notes: readonly string[];
}

/**
 * Compares the running configuration with a changed one. Flows are matched by name; a flow is
 * changed when any of its settings differ (its transforms compared by type and options, not by
 * where they sit in the file). The clusters and the pipeline's name are what every flow's clients
 * and internal names are made from: a change there needs a restart.
 */
export function planReload(current: PipelineConfig, next: PipelineConfig, running: readonly FlowConfig[]): ReloadPlan {
  const notes: string[] = [];
  if (!same(current.logging, next.logging)) notes.push('logging changes take effect at the next start');
  if (!same(current.http, next.http)) notes.push('http changes take effect at the next start');
  const empty = { added: [], removed: [], changed: [], unchanged: running.map((f) => f.name), notes };
  if (next.name !== current.name) {
    return { ...empty, refused: `The pipeline's name changed (${current.name} → ${next.name}); its internal names derive from it, so that needs a restart.` };
  }
  const clusters = [...new Set([...Object.keys(current.clusters), ...Object.keys(next.clusters)])].filter(
    (alias) => !same(current.clusters[alias], next.clusters[alias]),
  );
  if (clusters.length > 0) {
    return { ...empty, refused: `Cluster settings changed (${clusters.map((c) => `clusters.${c}`).join(', ')}); that needs a restart.` };
  }
  const wanted = new Map(next.flows.filter((f) => f.enabled || f.heartbeats.enabled).map((f) => [f.name, f]));
  const added: string[] = [];
  const removed: string[] = [];
  const changed: string[] = [];
  const unchanged: string[] = [];
  for (const flow of running) {
    const now = wanted.get(flow.name);
    if (now === undefined) removed.push(flow.name);
    else if (same(comparable(flow), comparable(now))) unchanged.push(flow.name);
    else changed.push(flow.name);
  }
  const known = new Set(running.map((f) => f.name));
  for (const name of wanted.keys()) if (!known.has(name)) added.push(name);
  return { added, removed, changed, unchanged, notes };
}

/** A flow's settings without the file positions of its transforms. */
function comparable(flow: FlowConfig): unknown {
  return { ...flow, transforms: flow.transforms.map((t) => ({ type: t.type, options: t.options })) };
}
