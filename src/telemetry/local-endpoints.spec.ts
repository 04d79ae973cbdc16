import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { announceLocalEndpoint, findLocalEndpoints, localEndpointsDir } from './local-endpoints';

test('an announced endpoint is found until it is withdrawn', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-endpoints-'));
  const withdraw = announceLocalEndpoint({ pipeline: 'mm2', address: '127.0.0.1:9465' }, dir);
  const found = findLocalEndpoints(dir);
  assert.equal(found.length, 1);
  assert.equal(found[0]!.pid, process.pid);
  assert.equal(found[0]!.pipeline, 'mm2');
  assert.equal(found[0]!.address, '127.0.0.1:9465');
  withdraw();
  assert.deepEqual(findLocalEndpoints(dir), []);
  assert.deepEqual(readdirSync(dir), []);
});

test('the file of a process that is gone (kill -9) is removed by the next reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-endpoints-'));
  // A pid that existed and is gone: a child that already exited.
  const gone = spawnSync(process.execPath, ['-e', '0']).pid;
  writeFileSync(join(dir, `${gone}.json`), JSON.stringify({ pid: gone, pipeline: 'p', address: '127.0.0.1:9466', since: new Date().toISOString() }));
  writeFileSync(join(dir, 'notes.txt'), 'not an endpoint');
  assert.deepEqual(findLocalEndpoints(dir), []);
  assert.deepEqual(readdirSync(dir), ['notes.txt']);
});

test('a missing folder means no endpoints', () => {
  assert.deepEqual(findLocalEndpoints(join(tmpdir(), 'mirrorflow-endpoints-never-made', String(process.pid))), []);
});

test('the folder: MIRRORFLOW_RUNTIME_DIR, else XDG_RUNTIME_DIR/mirrorflow, else one per user in the temp dir', () => {
  assert.equal(localEndpointsDir({ MIRRORFLOW_RUNTIME_DIR: '/x/y' }), '/x/y');
  assert.equal(localEndpointsDir({ XDG_RUNTIME_DIR: '/run/user/1000' }), '/run/user/1000/mirrorflow');
  assert.match(localEndpointsDir({}), /mirrorflow-\d+$/);
});
