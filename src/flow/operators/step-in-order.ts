import { type Observable, type OperatorFunction, concatMap, isObservable, of } from '#rxjs';

/** A step's answer: at once (the value), or later (an observable of it). */
export type Answer<T> = T | Observable<T>;

/**
 * Each value through `step`, in input order: an answer given at once passes on, an answer given
 * later is waited for, and the values after it wait with it. A step that asks a registry only for
 * what it does not know yet answers most values at once.
 */
export function stepInOrder<T, R>(step: (value: T) => Answer<R>): OperatorFunction<T, R> {
  return concatMap((value) => {
    const answer = step(value);
    return isObservable(answer) ? answer : of(answer);
  });
}
