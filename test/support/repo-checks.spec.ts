import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { checkRepository, deadLinksInDocs, deadSeeReferences, headingAnchor, longFiles, longReadme } from './repo-checks';

/** The repository root, seen from `dist/test/support/`. */
const root = resolve(__dirname, '..', '..', '..');

/** A throwaway repository with the given files. */
function fixture(files: Record<string, string>): { dir: string; path: (f: string) => string; [Symbol.dispose](): void } {
  const dir = mkdtempSync(join(tmpdir(), 'mirrorflow-repo-checks-'));
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, file)), { recursive: true });
    writeFileSync(join(dir, file), text);
  }
  return { dir, path: (f) => join(dir, f), [Symbol.dispose]: () => rmSync(dir, { recursive: true, force: true }) };
}

describe('repository checks', () => {
  it('find no dead link, no missing file named in a comment and no overlong file in this repository', () => {
    assert.deepEqual(checkRepository(root), []);
  });

  it('report a dead Markdown link and a missing path in backticks, and nothing that resolves', () => {
    using repo = fixture({
      'src/a.ts': '',
      'docs/guide.md': '# Guide\n\n## Setup\n',
      'README.md': [
        'See [the guide](docs/guide.md#setup), [the code](src/a.ts) and [the site](https://kafka.apache.org).',
        'Gone: [old notes](docs/old.md) and `src/b.ts`; an example name like `my-pipeline.yaml` is not a repository file.',
        '```',
        '[inside a code block](nowhere.md) is not a link',
        '```',
      ].join('\n'),
    });
    assert.deepEqual(deadLinksInDocs(repo.dir, [repo.path('README.md')]), [
      { file: 'README.md', line: 2, message: 'dead link: docs/old.md' },
      { file: 'README.md', line: 2, message: 'no such file: src/b.ts' },
    ]);
  });

  it('resolve a link from its own folder only, as GitHub does; a path in backticks also from the root', () => {
    using repo = fixture({ 'config/a.yaml': '', 'docs/page.md': '[up](../config/a.yaml), `config/a.yaml`, [from the root](config/a.yaml)' });
    assert.deepEqual(deadLinksInDocs(repo.dir, [repo.path('docs/page.md')]), [{ file: 'docs/page.md', line: 1, message: 'dead link: config/a.yaml' }]);
  });

  it("report a link's anchor that is no heading of the file it leads to", () => {
    using repo = fixture({
      'docs/guide.md': ['# Guide', '', "## Copying a flow's subjects: `schemas copy`", '', '```', '## not a heading', '```', '## Notes', '## Notes'].join('\n'),
      'docs/other.md': [
        '[ok](guide.md#copying-a-flows-subjects-schemas-copy), [ok](guide.md#notes-1), [ok](#other), [ok](../src/a.ts#L3)',
        '[gone](guide.md#setup), [code](guide.md#not-a-heading), [here](#nowhere)',
        '# Other',
      ].join('\n'),
      'src/a.ts': '',
    });
    assert.deepEqual(deadLinksInDocs(repo.dir, [repo.path('docs/other.md')]), [
      { file: 'docs/other.md', line: 2, message: 'no such heading: guide.md#setup' },
      { file: 'docs/other.md', line: 2, message: 'no such heading: guide.md#not-a-heading' },
      { file: 'docs/other.md', line: 2, message: 'no such heading: #nowhere' },
    ]);
  });

  it('name anchors as GitHub does', () => {
    assert.equal(headingAnchor('`mirrorflow status`'), 'mirrorflow-status');
    assert.equal(headingAnchor('mm2.properties keys'), 'mm2properties-keys');
    assert.equal(headingAnchor('Exactly-once (`delivery: exactly_once`)'), 'exactly-once-delivery-exactly_once');
    assert.equal(headingAnchor('Certificates rotated, or failing, while it runs'), 'certificates-rotated-or-failing-while-it-runs');
    assert.equal(headingAnchor('Install — [the image](deploy.md)'), 'install--the-image');
  });

  it('report a README longer than a first screen', () => {
    using repo = fixture({ 'README.md': 'line\n'.repeat(251) });
    assert.deepEqual(longReadme(repo.dir), [
      { file: 'README.md', line: 1, message: '251 lines, over 250: the README is the first screen; move the detail into docs/ and link it' },
    ]);
    using short = fixture({ 'README.md': 'line\n'.repeat(250) });
    assert.deepEqual(longReadme(short.dir), []);
  });

  it('resolve a bare file name in a README under src/ from its own folder', () => {
    using repo = fixture({ 'src/wire/codec.ts': '', 'src/wire/README.md': '`codec.ts` is here, `decoder.ts` is not, and [up](../wire/codec.ts).' });
    assert.deepEqual(deadLinksInDocs(repo.dir, [repo.path('src/wire/README.md')]), [
      { file: 'src/wire/README.md', line: 1, message: 'no such file: decoder.ts' },
    ]);
  });

  it('report a file named after "see" in a comment when it does not exist', () => {
    const C = '/'.repeat(2);
    const SEE = 'se' + 'e';
    using repo = fixture({
      'src/present.ts': '',
      // Built from pieces, so that this spec's own lines do not read as such comments.
      'src/user.ts': [`${C} The framing: ${SEE} present.ts.`, `const x = 1; ${C} ${SEE} src/present.ts`, '/**', ` * Details: ${SEE} absent.ts`, ' */'].join(
        '\n',
      ),
    });
    assert.deepEqual(deadSeeReferences(repo.dir, [repo.path('src/user.ts')]), [
      { file: 'src/user.ts', line: 4, message: 'comment names a missing file: absent.ts' },
    ]);
  });

  it('report a file named in backticks in a comment when it exists nowhere; a bare name may live in another folder', () => {
    const C = '/'.repeat(2);
    const tick = (name: string) => '`' + name + '`';
    using repo = fixture({
      'src/a/present.ts': '',
      'src/b/user.ts': [
        `${C} Beside it: ${tick('present.ts')}, from the root: ${tick('src/a/present.ts')}; data: ${tick('my-pipeline.yaml')}.`,
        '/**',
        ` * Checks live in ${tick('gone.ts')} and ${tick('src/a/gone.ts')}.`,
        ' */',
        `const path = ${tick('src/a/missing.ts')};`,
      ].join('\n'),
    });
    assert.deepEqual(deadSeeReferences(repo.dir, [repo.path('src/b/user.ts')]), [
      { file: 'src/b/user.ts', line: 3, message: 'comment names a missing file: gone.ts' },
      { file: 'src/b/user.ts', line: 3, message: 'comment names a missing file: src/a/gone.ts' },
    ]);
  });

  it('report a file over the line limit unless a size comment at its top says why', () => {
    const body = 'a\nb\nc\nd\n';
    using repo = fixture({ 'src/long.ts': body, 'src/justified.ts': `// size: one table, read as one.\n${body}`, 'src/short.ts': 'a\nb\n' });
    const problems = longFiles(repo.dir, ['src/long.ts', 'src/justified.ts', 'src/short.ts'].map(repo.path), 3);
    assert.deepEqual(
      problems.map((p) => [p.file, p.message.split(':')[0]]),
      [['src/long.ts', '4 lines, over 3']],
    );
  });
});
