/**
 * Bad input never half-starts (issue #2; a contract of docs/architecture.md): `mirrorflow run` with a broken
 * pipeline file or an unreachable cluster prints a clear message on stderr (file, line, path,
 * hint; or the cluster's alias), exits non-zero, and writes nothing to any cluster.
 *
 * Each case uses cluster aliases of its own (pointing at the shared test clusters), so every
 * topic a half-start would create (`mm2-offsets.<source>.internal`, `<source>.<topic>`,
 * `mm2-offset-syncs.<target>.internal`) carries a name no other test uses.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { KafkaKit } from '../support/kafka-kit';
import { uniqueName, type TestClusters } from '../support/clusters';
import { sharedClusterKits } from '../support/use-kits';
import { runCli, writePipelineText, type CliResult } from '../support/pipeline-harness';

/** sysexits(3), as `src/cli/exit-codes.ts` maps errors. */
const EX_UNAVAILABLE = 69;
const EX_CONFIG = 78;

let clusters: TestClusters;
let primary: KafkaKit;
let backup: KafkaKit;

sharedClusterKits('mirrorflow-bad-input-', (kits) => ({ clusters, primary, backup } = kits));

interface Case {
  readonly src: string;
  readonly dst: string;
  readonly topic: string;
  /** A valid pipeline file for this case, one line per entry, to break as a test needs. */
  readonly lines: string[];
}

/** A case with its own aliases and a source topic holding records, so a half-start would have work to do. */
async function newCase(name: string, bootstrap: { src?: string; dst?: string } = {}): Promise<Case> {
  const p = uniqueName(name);
  const src = `src-${p}`;
  const dst = `dst-${p}`;
  const topic = `${p}-data`;
  await primary.createTopic(topic, 2);
  await primary.produce(
    topic,
    [0, 1].map((partition) => ({ partition, key: null, value: Buffer.from('x'), headers: [], timestamp: Date.now() })),
  );
  const lines = [
    `name: ${p}`,
    'clusters:',
    `  ${src}:`,
    `    bootstrap_servers: ["${bootstrap.src ?? clusters.primary}"]`,
    `  ${dst}:`,
    `    bootstrap_servers: ["${bootstrap.dst ?? clusters.backup}"]`,
    'flows:',
    `  - source: ${src}`,
    `    target: ${dst}`,
    `    topics: ["${p}-.*"]`,
    '    topic_sync:',
    '      refresh_interval_ms: 1000',
    '    progress:',
    '      flush_interval_ms: 500',
  ];
  return { src, dst, topic, lines };
}

async function run(c: Case, lines: readonly string[] = c.lines, args: readonly string[] = []): Promise<{ file: string; result: CliResult }> {
  const file = writePipelineText(lines.join('\n') + '\n', `${c.src}.yaml`);
  const result = await runCli(['run', file, '--status-interval', '0', '--http', 'off', ...args], 60_000);
  return { file, result };
}

/** Nothing on either cluster names this case's aliases, and its topic was not copied. */
async function assertNothingWritten(c: Case): Promise<void> {
  const onBackup = [...(await backup.topicsContaining(c.src)), ...(await backup.topicsContaining(c.dst)), ...(await backup.topicsContaining(c.topic))];
  assert.deepEqual(onBackup, [], `no topic may be created on backup (e.g. mm2-offsets.${c.src}.internal, ${c.src}.${c.topic})`);
  const onPrimary = [...(await primary.topicsContaining(c.src)), ...(await primary.topicsContaining(c.dst))];
  assert.deepEqual(onPrimary, [], `no topic may be created on primary (e.g. mm2-offset-syncs.${c.dst}.internal)`);
}

function assertClearFailure(result: CliResult, code: number): void {
  assert.equal(result.code, code, `exit code; stderr:\n${result.stderr}`);
  assert.match(result.stderr, /^mirrorflow: /m, 'the message starts with the program name');
  assert.doesNotMatch(result.stderr, /^\s+at .+:\d+:\d+\)?$/m, `no stack trace; stderr:\n${result.stderr}`);
}

/** 1-based number of the first line containing `text`. */
function lineOf(lines: readonly string[], text: string): number {
  const index = lines.findIndex((line) => line.includes(text));
  assert.ok(index >= 0, `test bug: no line contains ${text}`);
  return index + 1;
}

describe('mirrorflow run with bad input', () => {
  test('invalid YAML: file and line of the syntax error', async () => {
    const c = await newCase('bad-yaml');
    const lines = c.lines.map((line) => (line.startsWith('    topics:') ? `    topics: ["${c.topic}"` : line));
    const { file, result } = await run(c, lines);
    assertClearFailure(result, EX_CONFIG);
    assert.match(result.stderr, new RegExp(`${escape(file)}:\\d+:\\d+`), 'names the file with line and column');
    await assertNothingWritten(c);
  });

  test('unknown keys: each named, with its line and the key that was meant', async () => {
    const c = await newCase('bad-key');
    const lines = [...c.lines, '    batching:', '      max_record: 10', '    topic_sync_typo: true'];
    lines[lineOf(lines, 'refresh_interval_ms') - 1] = '      refresh_interval: 1000';
    const { file, result } = await run(c, lines);
    assertClearFailure(result, EX_CONFIG);
    for (const [key, meant] of [
      ['max_record', 'max_records'],
      ['refresh_interval', 'refresh_interval_ms'],
    ] as const) {
      const line = lineOf(lines, `${key}:`);
      assert.match(
        result.stderr,
        new RegExp(`^${escape(file)}:${line}:\\d+: flows\\[0\\]\\.\\w+\\.${key}: unknown key$`, 'm'),
        `names "${key}" at line ${line}:\n${result.stderr}`,
      );
      assert.match(result.stderr, new RegExp(`\\.${key}: unknown key\n {2}hint: did you mean "${meant}"\\?`), `hints "${meant}":\n${result.stderr}`);
    }
    assert.match(result.stderr, /flows\[0\]\.topic_sync_typo: unknown key/, 'every problem is reported, not just the first');
    await assertNothingWritten(c);
  });

  test('a topic regex that does not compile: named with its path', async () => {
    const c = await newCase('bad-regex');
    const lines = c.lines.map((line) => (line.startsWith('    topics:') ? '    topics: ["orders-[0-9"]' : line));
    const { file, result } = await run(c, lines);
    assertClearFailure(result, EX_CONFIG);
    const line = lineOf(lines, 'orders-[0-9');
    assert.match(
      result.stderr,
      new RegExp(`${escape(file)}:${line}:\\d+: flows\\[0\\]\\.topics\\[0\\]: invalid regular expression "orders-\\[0-9"`),
      result.stderr,
    );
    await assertNothingWritten(c);
  });

  test('an unknown transform plugin: named, with the known ones', async () => {
    const c = await newCase('bad-plugin');
    const lines = [...c.lines, '    transforms:', '      - type: no_such_plugin'];
    const { result } = await run(c, lines);
    assertClearFailure(result, EX_CONFIG);
    assert.match(result.stderr, /flows\[0\]\.transforms\[0\]\.type: Unknown transform type "no_such_plugin"/);
    assert.match(result.stderr, /known types: .*insert_header/);
    await assertNothingWritten(c);
  });

  test('a flow naming an undeclared cluster: named, with the declared one meant', async () => {
    const c = await newCase('bad-alias');
    const typo = `${c.dst}x`;
    const lines = c.lines.map((line) => (line.startsWith('    target:') ? `    target: ${typo}` : line));
    const { file, result } = await run(c, lines);
    assertClearFailure(result, EX_CONFIG);
    const line = lineOf(lines, `target: ${typo}`);
    assert.match(result.stderr, new RegExp(`${escape(file)}:${line}:\\d+: flows\\[0\\]\\.target: unknown cluster "${typo}"`), result.stderr);
    assert.match(result.stderr, new RegExp(`did you mean "${c.dst}"`));
    await assertNothingWritten(c);
  });

  // Without --startup-timeout, `run` waits for an unreachable cluster (test/faults/cluster-down-at-start.test.ts).
  test('an unreachable target cluster, with --startup-timeout: named; nothing written to the reachable source', async () => {
    const c = await newCase('bad-target', { dst: '127.0.0.1:1' });
    const { result } = await run(c, c.lines, ['--startup-timeout', '1000']);
    assertClearFailure(result, EX_UNAVAILABLE);
    assert.match(result.stderr, new RegExp(`Cluster "${c.dst}"`), result.stderr);
    assert.doesNotMatch(result.stderr, new RegExp(`Cluster "${c.src}"`), 'the reachable cluster is not blamed');
    await assertNothingWritten(c);
  });

  test('an unreachable source cluster, with --startup-timeout: named; nothing written to the reachable target', async () => {
    const c = await newCase('bad-source', { src: '127.0.0.1:1' });
    const { result } = await run(c, c.lines, ['--startup-timeout', '1000']);
    assertClearFailure(result, EX_UNAVAILABLE);
    assert.match(result.stderr, new RegExp(`Cluster "${c.src}"`), result.stderr);
    await assertNothingWritten(c);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
