import { type Observable, ReplaySubject, defer, finalize, take } from '#rxjs';

/**
 * Runs `body` with a stop signal that is replayed: parts of a flow that subscribe after the
 * stop was asked for (say, timers started once loading is done) still see it and end at once.
 * A plain `takeUntil(stop$)` would miss a stop that came before its subscription.
 */
export function withStopSignal<T>(stop$: Observable<unknown>, body: (stopped$: Observable<void>) => Observable<T>): Observable<T> {
  return defer(() => {
    const stopped$ = new ReplaySubject<void>(1);
    const subscription = stop$.pipe(take(1)).subscribe(() => {
      stopped$.next();
      stopped$.complete();
    });
    return body(stopped$).pipe(finalize(() => subscription.unsubscribe()));
  });
}
