import { type FlowSnapshot, flowName } from './flow-snapshot';

/** How long an operation may fail before the process stops counting as ready. */
export const OUTAGE_NOT_READY_MS = 10_000;

export interface FlowReadiness {
  readonly flow: string;
  readonly ready: boolean;
  /** Why it is not ready; empty when it is. */
  readonly reasons: readonly string[];
}

export interface Readiness {
  readonly ready: boolean;
  readonly reason?: string;
  readonly flows: readonly FlowReadiness[];
}

/**
 * Ready means every flow does its job: replication running (idle counts: a running flow with
 * nothing to copy is fine), writes not failing, checkpoints and heartbeats not failed. A
 * pipeline whose flows are not built yet is not ready.
 */
export function readiness(flows: readonly FlowSnapshot[], now: number = Date.now()): Readiness {
  if (flows.length === 0) return { ready: false, reason: 'the pipeline has not started its flows yet', flows: [] };
  const perFlow = flows.map((f): FlowReadiness => {
    const reasons: string[] = [];
    if (f.state !== 'running') reasons.push(f.replicating ? `replication is ${f.state}` : `heartbeats are ${f.state}`);
    for (const o of f.outages) {
      // A failure that passes within seconds (a leader moving) is not an outage worth a 503.
      if (now - o.since < OUTAGE_NOT_READY_MS) continue;
      reasons.push(`${o.operation} on ${o.cluster} has been failing for ${Math.round((now - o.since) / 1000)} s: ${o.lastError}`);
    }
    if (f.replicating && f.checkpoints.state === 'failed') reasons.push('checkpoints failed');
    if (f.heartbeats.state === 'failed' && f.replicating) reasons.push('heartbeats failed');
    return { flow: flowName(f), ready: reasons.length === 0, reasons };
  });
  return { ready: perFlow.every((f) => f.ready), flows: perFlow };
}
