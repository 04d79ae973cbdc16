import type { Observable } from '#rxjs';
import type { GroupTimings } from './group-timings';

export interface CampaignOptions {
  /** The group whose members elect one of them; every process of the flow joins it. */
  readonly groupId: string;
  /**
   * A one-partition topic whose partition 0 is the seat: the member the group assigns it to is
   * elected. Created (compacted) when missing; nothing is read from it.
   */
  readonly topic: string;
  readonly replicationFactor: number;
  /** As the flow's source group (a process that dies loses its seat when it loses its partitions); defaults as there. */
  readonly group?: GroupTimings;
  /**
   * Awaited before this member rejoins the group while elected: resolves once the elected jobs
   * have stopped, so no other member is elected before.
   */
  readonly stepDown: () => Promise<void>;
}

/**
 * Elects one member among the processes running a flow, through Kafka's group protocol (the way
 * Kafka Connect's workers elect their leader): nothing home-made, and a member that dies loses
 * the seat when its session expires.
 */
export interface LeaderElection {
  readonly cluster: string;
  /** Joins on subscribe; emits true when elected, false when no longer; unsubscribing leaves. */
  campaign(options: CampaignOptions): Observable<boolean>;
}
