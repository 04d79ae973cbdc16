import { type FlowSnapshot, flowName } from './flow-snapshot';

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
    if (f.outage !== undefined) {
      const since = f.outage.since === undefined ? '' : ` for ${Math.max(0, Math.round((now - f.outage.since) / 1000))} s`;
      reasons.push(`writes to ${f.target} have been failing${since}${f.outage.reason === undefined ? '' : `: ${f.outage.reason}`}`);
    }
    if (f.replicating && f.checkpoints.state === 'failed') reasons.push('checkpoints failed');
    if (f.heartbeats.state === 'failed' && f.replicating) reasons.push('heartbeats failed');
    return { flow: flowName(f), ready: reasons.length === 0, reasons };
  });
  return { ready: perFlow.every((f) => f.ready), flows: perFlow };
}
