/** Live counters of one flow's heartbeats (`FlowStatus.heartbeats`). */
export class HeartbeatStatus {
  state: 'disabled' | 'starting' | 'running' | 'stopped' | 'failed' = 'disabled';
  /** Heartbeats written and acknowledged. */
  written = 0;
  /** Epoch ms of the last acknowledged heartbeat. */
  lastAt: number | undefined;
  errors = 0;
}
