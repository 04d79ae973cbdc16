import { firstValueFrom, lastValueFrom } from '#rxjs';
import type { ClusterAdmin, GroupOffset } from '../../core/ports/cluster-admin';
import { topicPartitionKey } from '../../core/record';

/** Markers are committed again after this long, so the broker's offset retention (7 days by default) never drops them while the flow runs. */
const MARKER_REFRESH_MS = 3_600_000;

/**
 * One partition's state as kept on the target, in the committed offsets of the flow's group
 * `<flow group>.preserved-offsets`, keyed by remote topic and partition: preserved from `offset`
 * on, or fallen back at source offset `offset`, for `reason`.
 */
export interface PreservationMarker {
  readonly preserved: boolean;
  readonly offset: number;
  readonly reason?: string;
}

/** The markers of a flow's partitions on the target, by remote `topic-partition` (`topicPartitionKey`). */
export async function readPreservationMarkers(admin: ClusterAdmin, group: string): Promise<Map<string, PreservationMarker>> {
  const markers = new Map<string, PreservationMarker>();
  for (const o of await firstValueFrom(admin.fetchGroupOffsets(group))) {
    const marker = parseMarker(o);
    if (marker !== undefined) markers.set(topicPartitionKey(o), marker);
  }
  return markers;
}

function parseMarker(offset: GroupOffset): PreservationMarker | undefined {
  try {
    const meta = JSON.parse(offset.metadata) as { preserved?: unknown; reason?: unknown };
    if (typeof meta.preserved !== 'boolean') return undefined;
    return { preserved: meta.preserved, offset: offset.offset, ...(typeof meta.reason === 'string' ? { reason: meta.reason } : {}) };
  } catch {
    return undefined;
  }
}

/**
 * The markers of the partitions one process holds, committed to the marker group on the target:
 * read once per assignment (`load`, again after `reload`), changed in memory (`hold`), committed
 * when asked (`commit`: the changed ones, and all of them once an hour).
 */
export class PreservationMarkers {
  private loaded: Promise<ReadonlyMap<string, PreservationMarker>> | undefined;
  /** By remote topic and partition. */
  private readonly held = new Map<string, GroupOffset>();
  private readonly changed = new Set<string>();
  private committedAt = 0;
  /** The last commit asked for; the next one goes out after it. */
  private committing: Promise<void> = Promise.resolve();

  constructor(
    private readonly admin: ClusterAdmin,
    private readonly group: string,
    private readonly now: () => number,
  ) {}

  /** The markers on the target, as read at the first call since the last `reload`. */
  load(): Promise<ReadonlyMap<string, PreservationMarker>> {
    this.loaded ??= readPreservationMarkers(this.admin, this.group);
    const loading = this.loaded;
    loading.catch(() => {
      if (this.loaded === loading) this.loaded = undefined;
    });
    return loading;
  }

  /** Reads the markers again at the next `load` (other processes may have written some). */
  reload(): void {
    this.loaded = undefined;
  }

  /** Holds a partition's marker; `unchanged`: the target has it already, nothing to commit. */
  hold(topic: string, partition: number, marker: PreservationMarker, unchanged: boolean): void {
    const key = topicPartitionKey({ topic, partition });
    const meta = marker.preserved ? { preserved: true } : { preserved: false, reason: marker.reason };
    this.held.set(key, { topic, partition, offset: marker.offset, metadata: JSON.stringify(meta) });
    if (!unchanged) this.changed.add(key);
  }

  /**
   * Commits the changed markers after the commits asked for before (one at a time, so that the
   * broker gets them in the order they were made): the partitions' starts and the flushes before
   * writes ask at once. A marker changed while its commit was out stays to commit: a partition
   * that falls back right after its start must not keep the start's mark.
   */
  commit(): Promise<void> {
    const commit = this.committing.catch(() => undefined).then(() => this.commitChanged());
    this.committing = commit;
    return commit;
  }

  private async commitChanged(): Promise<void> {
    const all = this.now() - this.committedAt >= MARKER_REFRESH_MS;
    const keys = all ? [...this.held.keys()] : [...this.changed];
    if (keys.length === 0) return;
    const offsets = keys.map((k) => this.held.get(k)!);
    await lastValueFrom(this.admin.commitGroupOffsets(this.group, offsets), { defaultValue: undefined });
    keys.forEach((k, i) => {
      if (this.held.get(k) === offsets[i]) this.changed.delete(k);
    });
    if (all) this.committedAt = this.now();
  }
}
