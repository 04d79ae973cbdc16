import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { LocalKafkaError } from '../core/errors';
import { withFileLock } from './file-lock';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-lock-spec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('withFileLock runs holders one after the other and removes the lock file', async () => {
  const lock = join(dir, 'serial.lock');
  const events: string[] = [];
  // The first holder keeps the lock until the other one says it waits for it.
  let waiting!: () => void;
  const otherWaits = new Promise<void>((resolve) => (waiting = resolve));
  const holder = (name: string) =>
    withFileLock(
      lock,
      async () => {
        events.push(`${name} in`);
        await otherWaits;
        events.push(`${name} out`);
      },
      { pollMs: 10, onWait: () => waiting() },
    );
  await Promise.all([holder('a'), holder('b')]);
  const first = events[0]!.split(' ')[0]!;
  const second = first === 'a' ? 'b' : 'a';
  assert.deepEqual(events, [`${first} in`, `${first} out`, `${second} in`, `${second} out`]);
  assert.equal(existsSync(lock), false);
});

test('withFileLock takes over a lock whose holder on this host is dead', async () => {
  const lock = join(dir, 'stale.lock');
  const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).stdout.toString();
  writeFileSync(lock, JSON.stringify({ pid: Number(dead), host: hostname(), since: new Date().toISOString() }));
  assert.equal(await withFileLock(lock, async () => 'ran', { timeoutMs: 2000, pollMs: 10 }), 'ran');
});

test('withFileLock gives up with a LocalKafkaError naming the holder when it waits too long', async () => {
  const lock = join(dir, 'held.lock');
  writeFileSync(lock, JSON.stringify({ pid: process.pid, host: hostname(), since: new Date().toISOString() }));
  await assert.rejects(
    withFileLock(lock, async () => 'never', { timeoutMs: 100, pollMs: 10 }),
    (error: unknown) => error instanceof LocalKafkaError && error.message.includes(`pid ${process.pid}`),
  );
});
