/**
 * Preloaded into a mirrorflow process (`node -r dist/test/cli/first-request-probe.js`) by
 * run-path-modules.spec.ts: at the process's first outgoing connection — its first request to a
 * broker — it writes what was loaded by then to the file named by MIRRORFLOW_PROBE_OUT (JSON: the
 * CommonJS modules' paths and the CPU used so far) and ends the process.
 */
import { writeFileSync } from 'node:fs';
import { Socket } from 'node:net';

export interface FirstRequestProbe {
  /** Every CommonJS module loaded (require.cache), this probe left out. */
  readonly modules: readonly string[];
  readonly cpuMs: number;
}

const out = process.env['MIRRORFLOW_PROBE_OUT'];
const connect = Socket.prototype.connect;
let seen = false;
Socket.prototype.connect = function (this: Socket, ...args: unknown[]): Socket {
  if (!seen && out !== undefined) {
    seen = true;
    const cpu = process.cpuUsage();
    const probe: FirstRequestProbe = { modules: Object.keys(require.cache).filter((m) => m !== __filename), cpuMs: (cpu.user + cpu.system) / 1000 };
    writeFileSync(out, JSON.stringify(probe));
    // Nothing after the first request matters here; a broker need not be listening.
    setImmediate(() => process.exit(0));
  }
  return (connect as (...a: unknown[]) => Socket).apply(this, args);
} as typeof Socket.prototype.connect;
