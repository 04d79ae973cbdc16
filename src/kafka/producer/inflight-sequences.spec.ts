import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InflightSequences } from './inflight-sequences';

const ID = { producerId: 7, producerEpoch: 0 };
const started = (): InflightSequences => {
  const s = new InflightSequences();
  s.start(ID);
  return s;
};

test('tickets of one partition take consecutive ranges in the order taken; a round stamps its part of its range', () => {
  const s = started();
  const a = s.ticket('t', 0, {}, 5).ticket;
  const b = s.ticket('t', 0, {}, 3).ticket;
  const other = s.ticket('t', 1, {}, 2).ticket;
  assert.equal(s.stamp(a, 0).baseSequence, 0);
  assert.equal(s.stamp(b, 0).baseSequence, 5);
  assert.equal(s.stamp(a, 2).baseSequence, 2, "a later round of a's records");
  assert.equal(s.stamp(other, 0).baseSequence, 0, 'each partition counts its own');
  assert.equal(s.behind(b), true);
  s.acknowledged(a, 0, 5);
  assert.equal(s.behind(b), false);
  s.acknowledged(b, 0, 3);
  assert.equal(s.stamp(s.ticket('t', 0, {}, 1).ticket, 0).baseSequence, 8, 'a partition whose tickets are all done goes on where it was');
});

test('the same write again (same first item and count) keeps its ticket; another count is another write', () => {
  const s = started();
  const first = {};
  const a = s.ticket('t', 0, first, 5).ticket;
  s.stamp(a, 0);
  assert.equal(s.ticket('t', 0, first, 5).ticket, a);
  const changed = s.ticket('t', 0, first, 4);
  assert.equal(changed.conflict, true);
  assert.notEqual(changed.ticket, a);
});

test('under a new producer id every unfinished ticket keeps its order: a later one waits until the earlier ones are placed', () => {
  const s = started();
  const a = s.ticket('t', 0, {}, 4).ticket;
  const b = s.ticket('t', 0, {}, 3).ticket;
  s.stamp(a, 0);
  s.stamp(b, 0);
  s.acknowledged(a, 0, 2); // a's first round was written, its second was not
  s.start({ producerId: 8, producerEpoch: 0 });
  assert.equal(s.ready(b, 0), false, 'b would overtake a');
  assert.equal(s.ready(a, 0), true);
  assert.deepEqual(s.stamp(a, 2), { producerId: 8, producerEpoch: 0, baseSequence: 0 }, "a's rest starts the new id's sequences");
  s.acknowledged(a, 2, 2);
  assert.equal(s.ready(b, 0), true);
  assert.equal(s.stamp(b, 0).baseSequence, 2);
});

test('until something of the producer id is acknowledged on a partition, only its earliest unfinished ticket goes: the broker takes any first sequence there', () => {
  const s = started();
  const a = s.ticket('t', 0, {}, 4).ticket;
  const b = s.ticket('t', 0, {}, 3).ticket;
  const elsewhere = s.ticket('t', 1, {}, 1).ticket;
  assert.equal(s.ready(a, 0), true);
  assert.equal(s.ready(b, 0), false, 'b, sent beside a first write that fails, would be appended before it');
  assert.equal(s.ready(elsewhere, 0), true, 'each partition on its own');
  s.stamp(a, 0);
  s.skip(a, 0, 1); // a record refused for good appends nothing
  assert.equal(s.ready(b, 0), false);
  s.acknowledged(a, 1, 2); // part of a written: the broker now orders the producer's sequences here
  assert.equal(s.ready(b, 0), true);
  s.stamp(b, 0);
  s.acknowledged(a, 3, 1);
  s.acknowledged(b, 0, 3);
  const later = [s.ticket('t', 0, {}, 1).ticket, s.ticket('t', 0, {}, 1).ticket];
  s.stamp(later[0]!, 0);
  assert.equal(s.ready(later[1]!, 0), true, 'still known once every ticket of the partition is done');
  s.start({ producerId: 8, producerEpoch: 0 });
  assert.deepEqual(
    later.map((t) => s.ready(t, 0)),
    [true, false],
    'a new producer id is known nowhere',
  );
});

test('records refused for good leave a gap only when something follows; at the end the next sequence moves back', () => {
  const s = started();
  const a = s.ticket('t', 0, {}, 3).ticket;
  s.stamp(a, 0);
  s.acknowledged(a, 0, 2);
  assert.equal(s.skip(a, 2, 1), false, 'the last record of the partition');
  assert.equal(s.stamp(s.ticket('t', 0, {}, 1).ticket, 0).baseSequence, 2);
  const b = s.ticket('t', 0, {}, 3).ticket;
  s.stamp(b, 0);
  assert.equal(s.skip(b, 0, 1), true, 'records of b follow the gap');
});

test('a dropped ticket no longer holds later ones back; sequences wrap past int32 as Kafka does', () => {
  const s = started();
  const a = s.ticket('t', 0, {}, 2).ticket;
  const b = s.ticket('t', 0, {}, 2).ticket;
  s.stamp(a, 0);
  s.stamp(b, 0);
  s.drop(a);
  assert.equal(s.behind(b), false);
  const w = new InflightSequences();
  w.start(ID);
  const big = w.ticket('t', 0, {}, 0x7fffffff).ticket;
  w.stamp(big, 0);
  const over = w.ticket('t', 0, {}, 2).ticket;
  assert.equal(w.stamp(over, 0).baseSequence, 0x7fffffff);
  assert.equal(w.stamp(over, 1).baseSequence, 0, 'past the maximum, 0');
  assert.equal(w.stamp(w.ticket('t', 0, {}, 1).ticket, 0).baseSequence, 1);
});

test("while a partition's earliest ticket is unfinished, the later ones send at most four new rounds: a broker recognises a batch sent again only among its last five", () => {
  const s = started();
  const first = s.ticket('t', 0, {}, 1).ticket;
  s.stamp(first, 0);
  s.acknowledged(first, 0, 1); // the broker knows the producer id on the partition
  const doubtful = s.ticket('t', 0, {}, 2).ticket;
  s.stamp(doubtful, 0); // its answer lost: the leader moved, the write backs off before it goes again
  const later = [1, 2, 3, 4, 5].map(() => s.ticket('t', 0, {}, 1).ticket);
  for (const t of later.slice(0, 4)) {
    assert.equal(s.ready(t, 0), true);
    s.stamp(t, 0);
    s.acknowledged(t, 0, 1);
  }
  assert.equal(s.ready(later[4]!, 0), false, 'a fifth batch after the doubtful one would push it out of what the broker recognises');
  assert.equal(s.ready(doubtful, 0), true, 'the doubtful write itself always goes again');
  assert.equal(s.ready(s.ticket('t', 1, {}, 1).ticket, 0), true, 'other partitions are not held back');
  s.acknowledged(doubtful, 0, 2);
  assert.equal(s.ready(later[4]!, 0), true, 'once it is acknowledged, the rest go on');
  assert.equal(s.stamp(later[4]!, 0).baseSequence, 7);
});

test('a round sent again does not count as another; a write split into rounds counts each, and a new producer id counts afresh', () => {
  const s = started();
  const first = s.ticket('t', 0, {}, 1).ticket;
  s.stamp(first, 0);
  s.acknowledged(first, 0, 1);
  const doubtful = s.ticket('t', 0, {}, 1).ticket;
  s.stamp(doubtful, 0);
  const split = s.ticket('t', 0, {}, 4).ticket;
  for (const position of [0, 1, 2]) {
    assert.equal(s.ready(split, position), true);
    s.stamp(split, position);
  }
  assert.equal(s.ready(split, 2), true, 'its third round again: nothing new for the broker');
  const next = s.ticket('t', 0, {}, 1).ticket;
  s.stamp(next, 0);
  assert.equal(s.ready(split, 3), false, 'a fourth round of it would be the fifth batch after the doubtful one');
  s.start({ producerId: 8, producerEpoch: 0 });
  assert.equal(s.ready(doubtful, 0), true);
  s.stamp(doubtful, 0);
  s.acknowledged(doubtful, 0, 1);
  assert.equal(s.ready(split, 3), true, 'under the new id nothing was sent after it yet');
});

test('a round refused as behind an earlier write holds the later tickets back until it is stamped again: else every batch goes twice', () => {
  const s = started();
  const first = s.ticket('t', 0, {}, 1).ticket;
  s.stamp(first, 0);
  s.acknowledged(first, 0, 1);
  const a = s.ticket('t', 0, {}, 2).ticket;
  const b = s.ticket('t', 0, {}, 2).ticket;
  const c = s.ticket('t', 0, {}, 2).ticket;
  s.stamp(a, 0);
  s.stamp(b, 0); // reached the broker before a: refused as out of order
  s.goesAgain(b);
  assert.equal(s.sendsAgain(b), true);
  s.acknowledged(a, 0, 2);
  assert.equal(s.ready(c, 0), false, 'sent before b goes again, c would be refused as out of order too');
  assert.equal(s.ready(s.ticket('t', 1, {}, 1).ticket, 0), true, 'other partitions are not held back');
  assert.equal(s.ready(b, 0), true);
  assert.equal(s.stamp(b, 0).baseSequence, 3, 'b goes again with the same sequences');
  assert.equal(s.sendsAgain(b), false);
  assert.equal(s.ready(c, 0), true, 'behind b again, c goes');
  assert.equal(s.stamp(c, 0).baseSequence, 5);
});
