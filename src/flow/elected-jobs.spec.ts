import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Observable, Subject, asyncScheduler, lastValueFrom } from '#rxjs';
import type { CampaignOptions, LeaderElection } from '../core/ports/leader-election';
import { silentLogger } from '../core/ports/logger';
import { whileElected } from './elected-jobs';

/** An election the test decides; remembers the stepDown it was given. */
function fakeElection(): { election: LeaderElection; seat: Subject<boolean>; options: () => CampaignOptions } {
  const seat = new Subject<boolean>();
  let given: CampaignOptions | undefined;
  return {
    seat,
    options: () => given!,
    election: {
      cluster: 'backup',
      campaign: (options) => {
        given = options;
        return seat.asObservable();
      },
    },
  };
}

/** A job whose write under way finishes after its stop signal: a turn of the event loop later. */
function slowToStop(log: string[]): (end$: Observable<void>) => Observable<never> {
  return (end$) =>
    new Observable<never>((subscriber) => {
      log.push('started');
      const subscription = end$.subscribe(() =>
        setImmediate(() => {
          log.push('stopped');
          subscriber.complete();
        }),
      );
      return () => subscription.unsubscribe();
    });
}

const campaign = { groupId: 'g.elected', topic: 'heartbeats', replicationFactor: -1 };

test('elected jobs run only while elected, and a step-down resolves only once they have stopped', async () => {
  const { election, seat, options } = fakeElection();
  const log: string[] = [];
  const elected: boolean[] = [];
  const stop$ = new Subject<void>();
  const done = lastValueFrom(
    whileElected({ election, campaign, onElected: (e) => elected.push(e), scheduler: asyncScheduler, logger: silentLogger }, slowToStop(log), stop$),
    { defaultValue: undefined },
  );
  assert.deepEqual(log, [], 'nothing runs before the election');
  seat.next(true);
  assert.deepEqual(log, ['started']);
  // The member is about to rejoin its group: the jobs must be over before it does.
  await options().stepDown();
  assert.deepEqual(log, ['started', 'stopped']);
  assert.deepEqual(elected, [true, false]);
  // Elected again after the rejoin: a new term.
  seat.next(true);
  assert.deepEqual(log, ['started', 'stopped', 'started']);
  // A stop ends the term first, then the campaign (the member leaves only after).
  stop$.next();
  await done;
  assert.deepEqual(log, ['started', 'stopped', 'started', 'stopped']);
  assert.deepEqual(elected, [true, false, true, false]);
});

test('a step-down right after the seat was lost (as KafkajsElection does before a rejoin: resign, then stepDown) still waits for the jobs to stop', async () => {
  const { election, seat, options } = fakeElection();
  const log: string[] = [];
  const stop$ = new Subject<void>();
  const done = lastValueFrom(
    whileElected({ election, campaign, onElected: () => undefined, scheduler: asyncScheduler, logger: silentLogger }, slowToStop(log), stop$),
    { defaultValue: undefined },
  );
  seat.next(true);
  seat.next(false);
  await options().stepDown();
  assert.deepEqual(log, ['started', 'stopped'], 'the write under way finished before the member rejoins');
  stop$.next();
  await done;
});

test('without an election (a single process, fakes behind the ports) the jobs always run', async () => {
  const log: string[] = [];
  const stop$ = new Subject<void>();
  const done = lastValueFrom(
    whileElected({ election: undefined, campaign, onElected: () => undefined, scheduler: asyncScheduler, logger: silentLogger }, slowToStop(log), stop$),
    { defaultValue: undefined },
  );
  assert.deepEqual(log, ['started']);
  stop$.next();
  await done;
  assert.deepEqual(log, ['started', 'stopped']);
});
