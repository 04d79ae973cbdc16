/**
 * CPU and memory of a process and its descendants, from Linux /proc: what the benchmark charges
 * to a replicator (a JVM or a node process, and anything they start).
 *
 * CPU = utime + stime of every live member, plus cutime + cstime of the root (descendants that
 * already exited and were reaped). Peak RSS = the larger of the root's VmHWM (the kernel's own
 * high-water mark) and the largest sum of the members' VmRSS seen by the sampler.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

let clockTicks: number | undefined;

/** Kernel clock ticks per second (USER_HZ), the unit of /proc/<pid>/stat times. */
export function clockTicksPerSecond(): number {
  if (clockTicks === undefined) {
    try {
      clockTicks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      clockTicks = 100;
    }
  }
  return clockTicks;
}

interface ProcStat {
  readonly pid: number;
  readonly ppid: number;
  /** utime + stime, ticks. */
  readonly ownTicks: number;
  /** cutime + cstime (reaped children), ticks. */
  readonly childTicks: number;
}

function readStat(pid: number): ProcStat | undefined {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // "pid (comm) state ppid …": comm may hold spaces and parentheses; fields follow the last ')'.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const num = (index: number): number => Number(fields[index] ?? 0);
  return { pid, ppid: num(1), ownTicks: num(11) + num(12), childTicks: num(13) + num(14) };
}

function statusKib(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : 0;
  } catch {
    return 0;
  }
}

/** `root` and every process below it, found by walking parent ids in /proc. */
export function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    const stat = readStat(Number(name));
    if (stat === undefined) continue;
    const list = children.get(stat.ppid) ?? [];
    list.push(stat.pid);
    children.set(stat.ppid, list);
  }
  const tree: number[] = [];
  const queue = [root];
  // A tree cannot hold more processes than /proc lists; the bound keeps a pid-reuse cycle finite.
  for (let guard = 0; queue.length > 0 && guard < 100_000; guard++) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

/** CPU seconds (user + sys) used so far by `root` and its descendants. */
export function treeCpuSeconds(root: number): number {
  let ticks = 0;
  for (const pid of processTree(root)) {
    const stat = readStat(pid);
    if (stat === undefined) continue;
    ticks += stat.ownTicks + (pid === root ? stat.childTicks : 0);
  }
  return ticks / clockTicksPerSecond();
}

/** CPU seconds of one process (threads included). */
export function processCpuSeconds(pid: number): number {
  const stat = readStat(pid);
  return stat === undefined ? 0 : stat.ownTicks / clockTicksPerSecond();
}

/** Busy CPU seconds of the whole machine so far (all but idle and iowait), from /proc/stat. */
export function machineBusySeconds(): number {
  const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
  // user nice system idle iowait irq softirq steal [guest guest_nice, already inside user/nice]
  const busy = fields.slice(0, 8).reduce((sum, value, index) => (index === 3 || index === 4 ? sum : sum + value), 0);
  return busy / clockTicksPerSecond();
}

export interface MeterReading {
  readonly cpuSeconds: number;
  readonly peakRssMiB: number;
}

/**
 * Samples a process tree every `intervalMs` for its resident memory and CPU. Read it before the
 * root is stopped, so the shutdown is not charged. Once the root has exited, /proc has nothing
 * left to read, and the last sample stands (a process that ends by itself, such as
 * ProducerPerformance, loses at most `intervalMs` of CPU).
 */
export class ProcessMeter {
  private peakRssKib = 0;
  private lastCpuSeconds = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    readonly root: number,
    intervalMs = 100,
  ) {
    this.sample();
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
  }

  private sample(): void {
    const tree = processTree(this.root);
    let rss = 0;
    for (const pid of tree) rss += statusKib(pid, 'VmRSS');
    this.peakRssKib = Math.max(this.peakRssKib, rss, statusKib(this.root, 'VmHWM'));
    // A gone root reads as 0; CPU time never goes down, so keep the largest reading.
    this.lastCpuSeconds = Math.max(this.lastCpuSeconds, treeCpuSeconds(this.root));
  }

  /** CPU seconds of the tree so far (the last sample once the root has exited). */
  cpuSeconds(): number {
    this.lastCpuSeconds = Math.max(this.lastCpuSeconds, treeCpuSeconds(this.root));
    return this.lastCpuSeconds;
  }

  read(): MeterReading {
    this.sample();
    return { cpuSeconds: this.lastCpuSeconds, peakRssMiB: this.peakRssKib / 1024 };
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
