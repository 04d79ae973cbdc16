/**
 * The levels of the process's named loggers, changeable while it runs (Connect's `/admin/loggers`),
 * with log4j's rules as Connect applies them: a logger without a level of its own takes its
 * nearest dotted ancestor's, and finally `root`'s; setting a level on a name sets it on that
 * logger and every known logger whose name starts with it (`root`: on all of them).
 *
 * mirrorflow's loggers (create-logger.ts names them): `mirrorflow` (what the process says),
 * `mirrorflow.flow.<source>-><target>` (one flow), `kafkajs` (the Kafka client library). A name
 * nothing logs under can be set too, as log4j creates the logger it is asked for; it changes
 * nothing until such a logger exists.
 */

/** log4j's levels, as Connect takes them (any case). */
export const LOG4J_LEVELS = ['OFF', 'FATAL', 'ERROR', 'WARN', 'INFO', 'DEBUG', 'TRACE', 'ALL'] as const;
export type Log4jLevel = (typeof LOG4J_LEVELS)[number];

/** The levels mirrorflow logs at. */
export type MessageLevel = 'error' | 'warn' | 'info' | 'debug';

export const ROOT_LOGGER = 'root';

/** How much a level lets through: a message passes when its rank is at most the logger's. */
const THRESHOLD: Record<Log4jLevel, number> = { OFF: 0, FATAL: 1, ERROR: 2, WARN: 3, INFO: 4, DEBUG: 5, TRACE: 6, ALL: 7 };
const RANK: Record<MessageLevel, number> = { error: 2, warn: 3, info: 4, debug: 5 };

/** Connect's LoggerLevel: the level, and when the REST API last changed it (epoch ms; null: never). */
export interface LoggerLevel {
  readonly level: Log4jLevel;
  readonly last_modified: number | null;
}

/** A level name as Connect reads it (`debug`, `INFO`); undefined when it is none. */
export function parseLog4jLevel(text: string): Log4jLevel | undefined {
  const upper = text.toUpperCase();
  return (LOG4J_LEVELS as readonly string[]).includes(upper) ? (upper as Log4jLevel) : undefined;
}

/** The process's level (`logging.level`, `--log-level`) as log4j names it. */
export function log4jLevel(level: MessageLevel): Log4jLevel {
  return level.toUpperCase() as Log4jLevel;
}

export class LogLevels {
  /** Levels set on a name (root's always), with when the REST API set them. */
  private readonly explicit = new Map<string, { level: Log4jLevel; lastModified: number | null }>();
  private readonly known = new Set<string>([ROOT_LOGGER]);
  private readonly listeners: (() => void)[] = [];
  /** Bumped on every change, so a logger's cached threshold knows when to look again. */
  private changes = 0;

  constructor(
    root: Log4jLevel,
    private readonly now: () => number = Date.now,
  ) {
    this.explicit.set(ROOT_LOGGER, { level: root, lastModified: null });
  }

  get version(): number {
    return this.changes;
  }

  /** A logger that exists (create-logger.ts registers each one it makes). */
  register(name: string): void {
    this.known.add(name);
  }

  /** The level a logger logs at: its own, else its nearest ancestor's, else root's. */
  effective(name: string): Log4jLevel {
    for (let n = name; ; n = n.slice(0, n.lastIndexOf('.'))) {
      const own = this.explicit.get(n);
      if (own !== undefined) return own.level;
      if (!n.includes('.')) return this.explicit.get(ROOT_LOGGER)!.level;
    }
  }

  enabled(name: string, level: MessageLevel): boolean {
    return RANK[level] <= THRESHOLD[this.effective(name)];
  }

  /** `GET /admin/loggers/{name}`: undefined for a logger that does not exist (404). */
  level(name: string): LoggerLevel | undefined {
    const n = name.toLowerCase() === ROOT_LOGGER ? ROOT_LOGGER : name;
    return this.known.has(n) ? this.describe(n) : undefined;
  }

  /** `GET /admin/loggers`: every logger with the level it logs at, by name. */
  all(): Record<string, LoggerLevel> {
    return Object.fromEntries([...this.known].sort().map((n) => [n, this.describe(n)]));
  }

  /**
   * `PUT /admin/loggers/{namespace}`: sets the level on the namespace's logger (made if need be)
   * and on every known logger whose name starts with it (`root`: all); returns their names,
   * sorted. A logger already at that level is left as it is (and keeps following its ancestors),
   * as Connect leaves it.
   */
  set(namespace: string, level: Log4jLevel): string[] {
    const root = namespace.toLowerCase() === ROOT_LOGGER;
    const name = root ? ROOT_LOGGER : namespace;
    this.known.add(name);
    const affected = [...this.known].filter((n) => root || n.startsWith(name)).sort();
    for (const n of affected) {
      if (this.effective(n) === level) continue;
      this.explicit.set(n, { level, lastModified: this.now() });
    }
    this.changes++;
    for (const listener of this.listeners) listener();
    return affected;
  }

  /** Called after every change. */
  onChange(listener: () => void): void {
    this.listeners.push(listener);
  }

  private describe(name: string): LoggerLevel {
    return { level: this.effective(name), last_modified: this.explicit.get(name)?.lastModified ?? null };
  }
}
