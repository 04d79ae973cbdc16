import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { lastLines, logExcerpt, readLogEnd } from './log-tail';

const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-log-tail-spec-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('readLogEnd reads the end of a file from a line boundary, and nothing for a missing file', async () => {
  const file = join(dir, 'server.log');
  writeFileSync(file, 'first line\nsecond line\nthird line\n');
  assert.equal(await readLogEnd(file, 1000), 'first line\nsecond line\nthird line\n');
  assert.equal(await readLogEnd(file, 15), 'third line\n');
  assert.equal(await readLogEnd(join(dir, 'missing.log')), '');
});

test('readLogEnd from a byte offset reads only what was written since, or the whole file after a roll-over', async () => {
  const file = join(dir, 'restarted.log');
  const before = 'first run\nfirst run ends\n';
  writeFileSync(file, `${before}second run\n`);
  assert.equal(await readLogEnd(file, 1000, Buffer.byteLength(before)), 'second run\n');
  assert.equal(await readLogEnd(file, 5, Buffer.byteLength(before)), '', 'a cut first line is dropped');
  writeFileSync(file, 'rolled\n');
  assert.equal(await readLogEnd(file, 1000, Buffer.byteLength(before)), 'rolled\n');
});

test('logExcerpt adds the exception message that follows an ERROR line, without the stack', () => {
  const log = [
    '[t] ERROR Unable to start acceptor (kafka.network.DataPlaneAcceptor)',
    'org.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:9092: Address already in use.',
    '\tat kafka.network.Acceptor.openServerSocket(SocketServer.scala:739)',
    '[t] INFO end',
  ].join('\n');
  assert.equal(
    logExcerpt(log, { tail: 1 }),
    'first errors:\n[t] ERROR Unable to start acceptor (kafka.network.DataPlaneAcceptor)\norg.apache.kafka.common.KafkaException: Socket server failed to bind to 127.0.0.1:9092: Address already in use.\nlast lines:\n[t] INFO end',
  );
});

test('logExcerpt shows the first errors, which name the cause, before the last lines', () => {
  const log = ['[t] INFO starting', '[t] ERROR Socket server failed to bind', '[t] INFO a', '[t] INFO b', '[t] INFO shut down'].join('\n');
  assert.equal(logExcerpt(log, { tail: 2 }), 'first errors:\n[t] ERROR Socket server failed to bind\nlast lines:\n[t] INFO b\n[t] INFO shut down');
  assert.deepEqual(lastLines('a\nb\n\n', 5), ['a', 'b']);
});
