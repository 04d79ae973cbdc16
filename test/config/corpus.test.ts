/**
 * The corpus of broken pipeline and mm2.properties files (issue #4): `mirrorflow validate` of all
 * of them at once, and `mirrorflow run FILE` of each (the real CLI, in the corpus folder), exit
 * with 78 and print exactly the problems `corpus/manifest.json` lists, with file, line, column,
 * path and hint;
 * and no cluster is touched: where a file is otherwise valid its clusters are the test clusters
 * (aliases `corpus-*`), and no topic or consumer group naming them appears on either.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { testClusters, type TestClusters } from '../support/clusters';
import { ClusterInventory, mirrorflow } from './cli';

/** The sources, not `dist/`: the files are data. */
const corpusDir = resolve(__dirname, '..', '..', '..', 'test', 'config', 'corpus');

interface Case {
  readonly file: string;
  readonly args?: readonly string[];
  readonly exit: number;
  /** The problems as printed, `{file}` for the file name, `{dir}` for the corpus folder. */
  readonly problems: readonly string[];
}

const cases = JSON.parse(readFileSync(join(corpusDir, 'manifest.json'), 'utf8')) as Case[];

let clusters: TestClusters;
let inventories: ClusterInventory[];
let untouched: { topics: string[]; groups: string[] }[];

before(async () => {
  clusters = await testClusters();
  inventories = [new ClusterInventory(clusters.primary), new ClusterInventory(clusters.backup)];
  untouched = await Promise.all(inventories.map((i) => i.namesContaining(['corpus'])));
});

after(async () => {
  await Promise.all((inventories ?? []).map((i) => i.close()));
});

/**
 * The problems `mirrorflow` printed on stderr, one per entry: a `file:line:col: key: message` line
 * with the `  hint: …` line under it. Warnings, `validate`'s verdicts (`FILE: 2 problems`) and the
 * `mirrorflow: …` lines are left out.
 */
function printedProblems(stderr: string): string[] {
  const problems: string[] = [];
  let inWarning = false;
  for (const line of stderr.split('\n')) {
    if (line.startsWith('  hint: ')) {
      if (!inWarning && problems.length > 0) problems[problems.length - 1] += `\n${line}`;
      continue;
    }
    inWarning = / warning: /.test(line);
    if (line === '' || inWarning || line.startsWith('mirrorflow: ') || /^[^:]+: (ok|\d+ problems?)\b/.test(line)) continue;
    problems.push(line);
  }
  return problems;
}

describe('corpus of broken configuration files', { concurrency: 4 }, () => {
  test('holds at least 30 files, each listed in the manifest', () => {
    const files = readdirSync(corpusDir)
      .filter((name) => name !== 'manifest.json')
      .sort();
    assert.ok(files.length >= 30, `only ${files.length} files`);
    assert.deepEqual([...new Set(cases.map((c) => c.file))].sort(), files);
    assert.ok(files.some((f) => f.endsWith('.yaml')) && files.some((f) => f.endsWith('.properties')));
  });

  test('validate FILE... reports the problems of every file at once, in file order, and exits 78', async () => {
    const plain = cases.filter((c) => c.args === undefined);
    const result = await mirrorflow(['validate', ...plain.map((c) => c.file)], { cwd: corpusDir, env: env() });
    assert.equal(result.code, 78, result.stderr);
    assert.equal(result.stdout, '', 'no file is ok');
    assert.deepEqual(printedProblems(result.stderr), plain.flatMap(expectedProblems));
    await assertUntouched();
  });

  // `run` reads one file; each is run on its own, several at a time.
  for (const c of cases) {
    const label = [c.file, ...(c.args ?? [])].join(' ');
    test(`run ${label}: every problem, exit ${c.exit}, nothing written`, async () => {
      const commands =
        c.args === undefined
          ? [['run', c.file]]
          : [
              ['run', c.file],
              ['validate', c.file],
            ];
      for (const [command, file] of commands) {
        const args = command === 'run' ? ['run', file!, '--status-interval', '0', '--http', 'off', ...(c.args ?? [])] : [command!, file!, ...(c.args ?? [])];
        const result = await mirrorflow(args, { cwd: corpusDir, env: env() });
        assert.equal(result.code, c.exit, `${command} ${label}: exit code; stderr:\n${result.stderr}`);
        assert.deepEqual(printedProblems(result.stderr), expectedProblems(c), `${command} ${label}`);
        assert.equal(result.stdout, '', `${command} ${label} printed on stdout`);
      }
      await assertUntouched();
    });
  }
});

/** The files' clusters, where they are otherwise valid, are the test clusters. */
function env(): NodeJS.ProcessEnv {
  return { PRIMARY_BOOTSTRAP: clusters.primary, BACKUP_BOOTSTRAP: clusters.backup };
}

function expectedProblems(c: Case): string[] {
  return c.problems.map((p) => p.replaceAll('{file}', c.file).replaceAll('{dir}', corpusDir));
}

async function assertUntouched(): Promise<void> {
  const now = await Promise.all(inventories.map((i) => i.namesContaining(['corpus'])));
  assert.deepEqual(now, untouched, 'no topic or consumer group may appear on the test clusters');
}
