/**
 * Preloaded into a mirrorflow process (`node -r dist/test/cli/first-request-probe.js`) by
 * run-path-modules.spec.ts: at the process's first outgoing connection — its first request to a
 * broker — it writes what was loaded by then to the file named by MIRRORFLOW_PROBE_OUT (JSON: the
 * CommonJS modules' paths and the CPU used so far) and ends the process.
 */
import { writeFileSync } from 'node:fs';
import { Socket } from 'node:net';

export interface FirstRequestProbe {
  /** Every CommonJS module loaded from its file (require.cache), this probe left out. */
  readonly modules: readonly string[];
  /** The modules of dist the CLI's bundle shares through require.cache (src/cli/bundled-modules.ts), run or not. */
  readonly bundled: readonly string[];
  readonly cpuMs: number;
}

const out = process.env['MIRRORFLOW_PROBE_OUT'];
const connect = Socket.prototype.connect;
let seen = false;
Socket.prototype.connect = function (this: Socket, ...args: unknown[]): Socket {
  if (!seen && out !== undefined) {
    seen = true;
    const cpu = process.cpuUsage();
    const files = Object.keys(require.cache).filter((m) => m !== __filename);
    // The bundle's entries have their exports behind a getter, which runs the module: not called here.
    const fromBundle = (m: string): boolean => Object.getOwnPropertyDescriptor(require.cache[m], 'exports')?.get !== undefined;
    const probe: FirstRequestProbe = {
      modules: files.filter((m) => !fromBundle(m)),
      bundled: files.filter(fromBundle),
      cpuMs: (cpu.user + cpu.system) / 1000,
    };
    writeFileSync(out, JSON.stringify(probe));
    // Nothing after the first request matters here; a broker need not be listening.
    setImmediate(() => process.exit(0));
  }
  return (connect as (...a: unknown[]) => Socket).apply(this, args);
} as typeof Socket.prototype.connect;
