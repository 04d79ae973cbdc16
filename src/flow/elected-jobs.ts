import {
  type Observable,
  type SchedulerLike,
  EMPTY,
  Subject,
  concatMap,
  defer,
  finalize,
  from,
  ignoreElements,
  mergeMap,
  retry,
  takeUntil,
  timer,
} from '#rxjs';
import type { CampaignOptions, LeaderElection } from '../core/ports/leader-election';
import type { Logger } from '../core/ports/logger';
import { describeError } from '../core/errors';
import { withStopSignal } from './operators/with-stop-signal';

/** How long a failed election member waits before it joins again. */
const REJOIN_DELAY_MS = 2_000;

export interface ElectedJobsOptions {
  /** Undefined: this process is the only one (fakes in specs), always elected. */
  readonly election: LeaderElection | undefined;
  readonly campaign: Omit<CampaignOptions, 'stepDown'>;
  /** Told when this process is elected and when it no longer is. */
  readonly onElected: (elected: boolean) => void;
  readonly scheduler: SchedulerLike;
  readonly logger: Logger;
}

/**
 * Runs a flow's once-per-flow jobs (any observable that ends when its stop signal fires) on the
 * elected member only. Each term runs `jobs` anew; a term ends before this member rejoins the
 * election group (the election awaits it), so terms of two members never overlap. Emitting
 * `stop$` ends the term first, then leaves the group.
 */
export function whileElected(options: ElectedJobsOptions, jobs: (stop$: Observable<void>) => Observable<never>, stop$: Observable<unknown>): Observable<never> {
  const { election, campaign, onElected, scheduler, logger } = options;
  return withStopSignal(stop$, (stopped$) => {
    if (election === undefined) {
      onElected(true);
      return jobs(stopped$).pipe(finalize(() => onElected(false)));
    }
    let term: { readonly end: Subject<void>; readonly done: Promise<void> } | undefined;
    /** The last term ended: asked again (the seat was lost, then the member steps down), it is waited for too. */
    let ended: Promise<void> = Promise.resolve();
    const endTerm = (): Promise<void> => {
      const current = term;
      term = undefined;
      if (current === undefined) return ended;
      current.end.next();
      current.end.complete();
      ended = current.done;
      return current.done;
    };
    const startTerm = (): Observable<never> =>
      defer(() => {
        if (term !== undefined) return EMPTY;
        const end = new Subject<void>();
        let finished = (): void => undefined;
        const current = { end, done: new Promise<void>((resolve) => (finished = resolve)) };
        term = current;
        onElected(true);
        logger.info('Elected: this process runs the flow jobs (checkpoints, group offset sync, heartbeats, topic config and ACL sync).', {
          group: campaign.groupId,
        });
        return jobs(end).pipe(
          finalize(() => {
            if (term === current) term = undefined;
            onElected(false);
            logger.info('No longer elected: the flow jobs stopped here.', { group: campaign.groupId });
            finished();
          }),
        );
      });
    // On a stop the term ends before the member leaves, so a successor never overlaps it.
    const leave$ = stopped$.pipe(concatMap(() => from(endTerm())));
    return election.campaign({ ...campaign, stepDown: endTerm }).pipe(
      mergeMap((elected) => (elected ? startTerm() : from(endTerm()).pipe(ignoreElements()))),
      retry({
        delay: (error: unknown) => {
          logger.warn('The election group failed; joining it again.', { group: campaign.groupId, error: describeError(error) });
          return from(endTerm()).pipe(concatMap(() => timer(REJOIN_DELAY_MS, scheduler)));
        },
      }),
      takeUntil(leave$),
    );
  });
}
