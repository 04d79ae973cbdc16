/**
 * OffsetSyncStore against MM2's own `OffsetSyncStore` class from the Kafka jars the launcher
 * fetched (connect-mirror 4.3.1): the same sync streams go into both, and every stored slot and
 * every translation must be equal. Seeded random streams cover initial loads with and without
 * `initializationMustReadToEnd`, steady syncs, bursts, upstream rewinds and downstream resets.
 *
 * The Java side is a small class compiled into MM2's package (OffsetSyncStore's test hooks are
 * package-private) and fed a script on stdin:
 *   `L u d` a sync read during the initial load   `S` the load reached the end (start returns)
 *   `U u d` a sync read afterwards                 `T g` translate g   `D` dump the 64 slots
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import { ensureKafkaDistribution, javaExecutable, type KafkaDistribution } from '../../src/local';
import { OffsetSyncStore, SYNCS_PER_PARTITION } from '../../src/flow/checkpoints/offset-sync-store';

const run = promisify(execFile);

const PROBE = `package org.apache.kafka.connect.mirror;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.ArrayList;
import java.util.List;
import java.util.OptionalLong;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.TopicPartition;

public class MirrorflowOffsetSyncProbe {
    static final TopicPartition TP = new TopicPartition("topic1", 2);

    static void apply(OffsetSyncStore store, long upstream, long downstream) {
        OffsetSync sync = new OffsetSync(TP, upstream, downstream);
        store.handleRecord(new ConsumerRecord<>("mm2-offset-syncs.b.internal", 0, 0, sync.recordKey(), sync.recordValue()));
    }

    public static void main(String[] args) throws Exception {
        boolean mustReadToEnd = Boolean.parseBoolean(args[0]);
        List<String> lines = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        for (String line; (line = in.readLine()) != null; ) lines.add(line);
        final List<long[]> load = new ArrayList<>();
        int i = 0;
        for (; i < lines.size() && !lines.get(i).equals("S"); i++) {
            String[] f = lines.get(i).split(" ");
            load.add(new long[] {Long.parseLong(f[1]), Long.parseLong(f[2])});
        }
        OffsetSyncStore store = new OffsetSyncStore() {
            @Override
            void backingStoreStart() {
                for (long[] s : load) apply(this, s[0], s[1]);
            }
        };
        store.start(mustReadToEnd);
        StringBuilder out = new StringBuilder();
        for (i++; i < lines.size(); i++) {
            String[] f = lines.get(i).split(" ");
            switch (f[0]) {
                case "U": apply(store, Long.parseLong(f[1]), Long.parseLong(f[2])); break;
                case "T": {
                    OptionalLong t = store.translateDownstream("g", TP, Long.parseLong(f[1]));
                    out.append(t.isPresent() ? Long.toString(t.getAsLong()) : "E").append('\\n');
                    break;
                }
                case "D": {
                    for (int s = 0; s < OffsetSyncStore.SYNCS_PER_PARTITION; s++) {
                        OffsetSync sync = store.syncFor(TP, s);
                        boolean same = s > 0 && sync == store.syncFor(TP, s - 1);
                        out.append(same ? "=" : sync.upstreamOffset() + ":" + sync.downstreamOffset()).append(s == 63 ? '\\n' : ',');
                    }
                    break;
                }
                default: throw new IllegalArgumentException(lines.get(i));
            }
        }
        System.out.print(out);
    }
}
`;

let distribution: KafkaDistribution;
let classes: string;
let scratch: string;

before(async () => {
  distribution = await ensureKafkaDistribution();
  scratch = mkdtempSync(join(tmpdir(), 'mirrorflow-syncstore-'));
  classes = join(scratch, 'classes');
  const sourceFile = join(scratch, 'MirrorflowOffsetSyncProbe.java');
  writeFileSync(sourceFile, PROBE);
  const java = javaExecutable();
  const javac = java === 'java' ? 'javac' : join(dirname(java), 'javac');
  await run(javac, ['-cp', distribution.classpath, '-d', classes, sourceFile], { maxBuffer: 16 * 1024 * 1024 });
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** A deterministic generator (mulberry32), so failures reproduce. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface Scenario {
  readonly name: string;
  readonly mustReadToEnd: boolean;
  readonly script: string[];
}

function scenario(name: string, seed: number, mustReadToEnd: boolean, base: number, spread: number): Scenario {
  const next = random(seed);
  const script: string[] = [];
  let upstream = base;
  let downstream = 0;
  const step = (): number => 1 + Math.floor(next() * spread);
  for (let k = 0; k < 150; k++) {
    upstream += step();
    downstream += 1 + Math.floor(next() * 5);
    script.push(`L ${upstream} ${downstream}`);
  }
  script.push('S');
  const probe = (): void => {
    for (const g of [
      base,
      upstream,
      upstream - 1,
      upstream + 1,
      upstream - spread * 3,
      Math.floor((base + upstream) / 2),
      upstream - Math.floor(next() * spread * 200),
    ]) {
      if (g >= 0) script.push(`T ${g}`);
    }
  };
  probe();
  script.push('D');
  for (let k = 0; k < 1500; k++) {
    const r = next();
    if (r < 0.01)
      upstream = Math.max(base, upstream - step() * 40); // upstream rewind
    else if (r < 0.05)
      upstream += step() * 50; // a burst between syncs
    else upstream += step();
    downstream = r > 0.997 ? 0 : downstream + 1 + Math.floor(next() * 5); // downstream reset
    script.push(`U ${upstream} ${downstream}`);
    if (k % 25 === 0) {
      probe();
      script.push('D');
    }
  }
  probe();
  script.push('D');
  return { name, mustReadToEnd, script };
}

/** mirrorflow's answers to a script, in the probe's output format. */
function mirrorflowAnswers(s: Scenario): string {
  const tp = { topic: 'topic1', partition: 2 };
  const store = new OffsetSyncStore({ initializationMustReadToEnd: s.mustReadToEnd });
  const out: string[] = [];
  for (const line of s.script) {
    const [op, a, b] = line.split(' ');
    if (op === 'L' || op === 'U') store.handle({ topicPartition: tp, upstreamOffset: Number(a), downstreamOffset: Number(b) });
    else if (op === 'S') store.markReadToEnd();
    else if (op === 'T') out.push(String(store.translateDownstream(tp, Number(a)) ?? 'E'));
    else if (op === 'D') {
      const slots: string[] = [];
      for (let i = 0; i < SYNCS_PER_PARTITION; i++) {
        const sync = store.syncFor(tp, i);
        slots.push(i > 0 && sync === store.syncFor(tp, i - 1) ? '=' : `${sync.upstreamOffset}:${sync.downstreamOffset}`);
      }
      out.push(slots.join(','));
    }
  }
  return out.join('\n') + '\n';
}

async function mm2Answers(s: Scenario): Promise<string> {
  const child = execFile(
    javaExecutable(),
    ['-cp', `${classes}:${distribution.classpath}`, 'org.apache.kafka.connect.mirror.MirrorflowOffsetSyncProbe', String(s.mustReadToEnd)],
    {
      maxBuffer: 64 * 1024 * 1024,
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  child.stdin!.end(s.script.join('\n') + '\n');
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, `the Java probe failed:\n${stderr.slice(-3000)}`);
  return stdout;
}

describe('OffsetSyncStore against MM2 4.3.1', () => {
  const scenarios = [
    scenario('steady syncs, full history at load', 1, false, 0, 20),
    scenario('steady syncs, latest only at load', 2, true, 0, 20),
    scenario('sparse wide syncs', 3, false, 1_000_000, 5000),
    scenario('offsets near 2^53', 4, false, Number.MAX_SAFE_INTEGER - 2 ** 40, 2 ** 20),
  ];
  for (const s of scenarios) {
    test(s.name, async () => {
      const expected = await mm2Answers(s);
      const actual = mirrorflowAnswers(s);
      const e = expected.split('\n');
      const a = actual.split('\n');
      const first = e.findIndex((line, i) => line !== a[i]);
      assert.equal(first, -1, `first difference at answer ${first}:\n  MM2:        ${e[first]}\n  mirrorflow: ${a[first]}`);
      assert.equal(e.length - 1, s.script.filter((line) => line.startsWith('T') || line === 'D').length, 'the probe answered the whole script');
    });
  }
});
