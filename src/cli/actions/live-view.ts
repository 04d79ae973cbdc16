import { Writable } from 'node:stream';
import { type FlowSnapshot, describeOutages, flowLag, flowLagMs, flowName } from '../../telemetry/flow-snapshot';
import { textTable } from './text-table';

/** The flows' snapshots at one moment, to compute rates from two of them. */
export interface LiveSample {
  readonly at: number;
  readonly flows: readonly FlowSnapshot[];
}

/** How far back the rates look: the oldest sample kept is about this old. */
export const RATE_WINDOW_MS = 5_000;

/**
 * The live view of `mirrorflow run` on a terminal, as text: per flow its state, records
 * replicated, records/s and MB/s since `previous`, lag in records and in time, the time to catch
 * up at the pace the lag shrank since `previous`, the age of the last checkpoint pass and of the
 * last heartbeat; then the outages under way. A pure function of two samples.
 */
export function renderLiveView(title: string, current: LiveSample, previous: LiveSample | undefined): string {
  const rows = [['FLOW', 'STATE', 'RECORDS', 'RECORDS/S', 'MB/S', 'LAG', 'LAG-TIME', 'CATCH-UP', 'CHECKPOINT', 'HEARTBEAT']];
  const outages: string[] = [];
  for (const f of current.flows) {
    const name = flowName(f);
    const before = previous?.flows.find((p) => flowName(p) === name);
    const seconds = previous === undefined ? 0 : (current.at - previous.at) / 1000;
    const lag = flowLag(f);
    const cp =
      f.checkpoints.state === 'disabled' ? 'off' : f.checkpoints.lastPassAt === undefined ? f.checkpoints.state : ago(current.at - f.checkpoints.lastPassAt);
    const hb = f.heartbeats.state === 'disabled' ? 'off' : f.heartbeats.lastAt === undefined ? f.heartbeats.state : ago(current.at - f.heartbeats.lastAt);
    if (!f.replicating) {
      rows.push([name, f.state, '-', '-', '-', '-', '-', '-', cp, hb]);
    } else if (before === undefined || seconds <= 0) {
      rows.push([name, f.state, String(f.recordsReplicated), '-', '-', String(lag), duration(flowLagMs(f, current.at)), lag === 0 ? 'caught up' : '-', cp, hb]);
    } else {
      const records = (f.recordsReplicated - before.recordsReplicated) / seconds;
      const mb = (f.bytesReplicated - before.bytesReplicated) / seconds / 1048576;
      const shrinking = (flowLag(before) - lag) / seconds;
      const eta = lag === 0 ? 'caught up' : shrinking > 0 ? duration((lag / shrinking) * 1000) : 'not catching up';
      rows.push([name, f.state, String(f.recordsReplicated), records.toFixed(0), mb.toFixed(2), String(lag), duration(flowLagMs(f, current.at)), eta, cp, hb]);
    }
    const down = describeOutages(f.outages, current.at);
    if (down !== undefined) outages.push(`  ${name}: ${down}`);
  }
  const tail = outages.length === 0 ? '' : `Failing, retrying:\n${outages.join('\n')}\n`;
  return `${title}\n${textTable(rows)}${tail}`;
}

/** `850 ms`, `12 s`, `4 m 10 s`, `3 h 2 m`. */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} m ${s % 60} s`;
  return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} m`;
}

function ago(ms: number): string {
  return `${duration(Math.max(0, ms))} ago`;
}

/**
 * A frame redrawn in place at the bottom of a terminal (ANSI: cursor up, clear to the end of the
 * screen), with text written above it: log lines scroll above the frame, and the frame is drawn
 * again below them. Lines longer than the terminal are cut, so the frame's height is its line count.
 */
export class LiveTerminal {
  private frame = '';
  private height = 0;

  constructor(private readonly out: NodeJS.WritableStream & { columns?: number }) {}

  /** Replaces the frame drawn last with `frame`. */
  draw(frame: string): void {
    const lines = frame.replace(/\n$/, '').split('\n');
    const width = this.out.columns;
    this.frame = `${lines.map((l) => (width !== undefined && width > 1 && l.length >= width ? l.slice(0, width - 1) : l)).join('\n')}\n`;
    this.out.write(this.erase() + this.frame);
    this.height = lines.length;
  }

  /** Writes `text` (whole lines) above the frame, then the frame again. */
  above(text: string): void {
    this.out.write(this.erase() + (text.endsWith('\n') ? text : `${text}\n`) + this.frame);
  }

  /** A stream whose writes go above the frame: what the logger writes to while the view is on. */
  stream(): Writable {
    return new Writable({
      write: (chunk: Buffer | string, _encoding, done) => {
        this.above(chunk.toString());
        done();
      },
    });
  }

  private erase(): string {
    return this.height > 0 ? `\r\u001b[${this.height}A\u001b[J` : '';
  }
}
