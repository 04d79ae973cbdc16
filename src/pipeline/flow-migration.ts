import { type Observable, ReplaySubject, catchError, concatMap, defer, EMPTY, from, ignoreElements, merge, of, take, tap } from '#rxjs';
import { describeError } from '../core/errors';
import { NOT_MIGRATING, MigrationWatch } from '../flow/migration-state';

export { MigrationWatch };

/**
 * Runs a flow unless `mirrorflow migrate finish` finished it: a finished flow is not started, and
 * a running one stops (drained, progress stored) once its finish is found, in every process. A
 * flow without a watch (one that does not replicate) just runs.
 */
export function unlessFinished(
  watch: MigrationWatch | undefined,
  stop$: Observable<void>,
  run: (stop$: Observable<void>) => Observable<never>,
): Observable<never> {
  if (watch === undefined) return run(stop$);
  const { logger } = watch;
  return defer(() => from(watch.refresh())).pipe(
    catchError((error: unknown) => {
      logger.warn('Could not read the migration state; the flow starts, and looks again while it runs.', { error: describeError(error) });
      return of(NOT_MIGRATING);
    }),
    concatMap((state) => {
      if (state.finish !== undefined) {
        logger.warn('The flow is not started: mirrorflow migrate finish stopped it for good. Remove it from the pipeline file.', {
          finishedAt: new Date(state.finish.at).toISOString(),
        });
        return EMPTY;
      }
      const finished$ = new ReplaySubject<void>(1);
      const watching$ = watch.finished(stop$).pipe(
        tap((finish) => {
          logger.warn('mirrorflow migrate finish stops the flow for good: it drains, stores its progress and does not start again.', {
            askedAt: new Date(finish.at).toISOString(),
          });
          finished$.next();
          finished$.complete();
        }),
        ignoreElements(),
      );
      return merge(run(merge(stop$, finished$).pipe(take(1))), watching$);
    }),
  );
}
