/**
 * Checks of the repository itself, run by `npm run lint` (after a build):
 *
 *   node dist/test/support/repo-checks.js
 *
 * - dead links: every relative Markdown link and every repository path in backticks in the
 *   documentation, and every source file a code comment names (after `see`, or in
 *   backticks), must name a file or folder that exists (a doc that sends the reader nowhere is worse than none),
 *   and a link's `#anchor` into a Markdown file must be one of its headings, as GitHub names them;
 * - the README stays a first screen: at most README_MAX_LINES lines (the rest belongs in docs/);
 * - long files: no file of src/ grows past MAX_LINES unless its first lines say why, in a
 *   comment starting with `size:` (a long file is a hint it holds two things).
 *
 * Problems are printed one a line (`file:line: message`) and make the exit code 1.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

/** Lines a file of src/ may have without a `size:` comment saying why it needs more. */
export const MAX_LINES = 400;

/** Lines the top-level README may have: what a newcomer reads on the first screens; the rest is in docs/. */
export const README_MAX_LINES = 250;

/** The documentation whose links and paths are checked, relative to the repository root. */
export const DOC_FILES = [
  'README.md',
  'CONTRIBUTING.md',
  'CHANGELOG.md',
  'docs',
  'test/bench/README.md',
  'test/bench/results/README.md',
  'src/kafka/wire/README.md',
  'plugins/README.md',
];

/** Folders whose code comments are checked for files named after `see`. */
const CODE_DIRS = ['src', 'test', 'plugins', 'config'];

export interface RepoProblem {
  readonly file: string;
  readonly line: number;
  readonly message: string;
}

const MARKDOWN_LINK = /\[[^\]]*\]\(([^)\s]+)\)/g;
const BACKTICKS = /`([^`\n]+)`/g;
/** A repository path: folders and a file name with a known extension, or a folder ending in `/`. */
const REPO_PATH = /^(?:\.{1,2}\/)?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*(?:\.(?:ts|js|cjs|mjs|md|json|yaml|yml|java|hex|properties)|\/)$/;
const SEE_COMMENT = /\bsee `?((?:\.{1,2}\/)?[A-Za-z0-9_.-]+(?:\/[A-Za-z0-9_.-]+)*\.(?:ts|js|cjs|md|json|java))\b/g;
/** Names in backticks in code comments that are checked: source files, not examples of data files. */
const CODE_FILE = /\.(?:ts|cjs|java)$/;
/** Top-level folders a path in backticks must start with to count as a repository path. */
const ROOTS = ['src/', 'test/', 'plugins/', 'pipelines/', 'config/', 'docs/', '.ci/', './', '../'];

function walk(dir: string, accept: (file: string) => boolean, found: string[] = []): string[] {
  if (!existsSync(dir)) return found;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, accept, found);
    else if (accept(path)) found.push(path);
  }
  return found;
}

/**
 * Whether `target`, as written in `file`, names something that exists: from the file's folder, or,
 * for a path in backticks (not a link), from the root. GitHub resolves a link from the file's
 * folder only, so `[x](config/a.yaml)` in docs/ leads nowhere even though `config/a.yaml` exists.
 */
function resolves(root: string, file: string, target: string, isLink = false): boolean {
  const path = decodeURIComponent(target.split('#')[0]!);
  if (path === '') return true;
  return existsSync(resolve(dirname(file), path)) || (!isLink && !path.startsWith('.') && existsSync(resolve(root, path)));
}

function isRepoPath(span: string): boolean {
  if (!REPO_PATH.test(span)) return false;
  // A bare file name is checked too in the folder-local READMEs, where `install.ts` means the file beside it.
  return ROOTS.some((r) => span.startsWith(r)) || !span.includes('/');
}

/** A heading's anchor as GitHub makes it: the text without markup, lower case, punctuation dropped, spaces as hyphens. */
export function headingAnchor(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a Markdown file's headings (outside code blocks), repeats numbered as GitHub does (`-1`, `-2`). */
function anchorsOf(file: string, cache: Map<string, Set<string>>): Set<string> {
  let anchors = cache.get(file);
  if (anchors !== undefined) return anchors;
  anchors = new Set();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const text of readFileSync(file, 'utf8').split('\n')) {
    if (text.trimStart().startsWith('```')) fenced = !fenced;
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading === null) continue;
    const base = headingAnchor(heading[1]!);
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    anchors.add(count === 0 ? base : `${base}-${count}`);
  }
  cache.set(file, anchors);
  return anchors;
}

/** Whether the `#anchor` of `target`, a link written in `file`, names a heading of the Markdown file it leads to. */
function anchorResolves(root: string, file: string, target: string, cache: Map<string, Set<string>>): boolean {
  const hash = target.indexOf('#');
  if (hash < 0) return true;
  const path = decodeURIComponent(target.slice(0, hash));
  const anchor = decodeURIComponent(target.slice(hash + 1));
  const linked = path === '' ? file : resolve(dirname(file), path);
  if (!linked.endsWith('.md') || !existsSync(linked)) return true;
  return anchorsOf(linked, cache).has(anchor);
}

/** Dead links and paths in the given Markdown files (absolute paths). */
export function deadLinksInDocs(root: string, docs: readonly string[]): RepoProblem[] {
  const problems: RepoProblem[] = [];
  const anchors = new Map<string, Set<string>>();
  for (const file of docs) {
    const shown = relative(root, file).split(sep).join('/');
    let fenced = false;
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        if (text.trimStart().startsWith('```')) fenced = !fenced;
        if (fenced) return;
        for (const [, target] of text.matchAll(MARKDOWN_LINK)) {
          if (/^[a-z]+:/i.test(target!)) continue;
          if (!target!.startsWith('#') && !resolves(root, file, target!, true))
            problems.push({ file: shown, line: index + 1, message: `dead link: ${target}` });
          else if (!anchorResolves(root, file, target!, anchors)) problems.push({ file: shown, line: index + 1, message: `no such heading: ${target}` });
        }
        for (const [, span] of text.matchAll(BACKTICKS)) {
          // A bare file name outside src/ is an example (`my-pipeline.yaml`), not a repository file.
          if (!isRepoPath(span!) || (!span!.includes('/') && !shown.startsWith('src/'))) continue;
          if (!resolves(root, file, span!)) problems.push({ file: shown, line: index + 1, message: `no such file: ${span}` });
        }
      });
  }
  return problems;
}

/**
 * Files named in comments of the given code files that do not exist: after `see`, or in
 * backticks (`src/flow/topics/topic-sync.ts`, or a bare `topic-sync.ts`, which may live in any folder).
 */
export function deadSeeReferences(root: string, files: readonly string[]): RepoProblem[] {
  const problems: RepoProblem[] = [];
  let names: Set<string> | undefined;
  const existsSomewhere = (name: string): boolean => {
    names ??= new Set(CODE_DIRS.flatMap((dir) => walk(join(root, dir), () => true)).map((f) => f.split(sep).at(-1)!));
    return names.has(name);
  };
  for (const file of files) {
    const shown = relative(root, file).split(sep).join('/');
    readFileSync(file, 'utf8')
      .split('\n')
      .forEach((text, index) => {
        const comment = text.match(/(?:\/\/|\/\*|^\s*\*)(.*)$/)?.[1];
        if (comment === undefined) return;
        for (const [, target] of comment.matchAll(SEE_COMMENT)) {
          if (!resolves(root, file, target!)) problems.push({ file: shown, line: index + 1, message: `comment names a missing file: ${target}` });
        }
        for (const [, span] of comment.matchAll(BACKTICKS)) {
          if (!isRepoPath(span!) || !CODE_FILE.test(span!) || resolves(root, file, span!)) continue;
          if (!span!.includes('/') && existsSomewhere(span!)) continue;
          problems.push({ file: shown, line: index + 1, message: `comment names a missing file: ${span}` });
        }
      });
  }
  return problems;
}

/** Files over `maxLines` whose first ten lines carry no `size:` comment. */
export function longFiles(root: string, files: readonly string[], maxLines = MAX_LINES): RepoProblem[] {
  const problems: RepoProblem[] = [];
  for (const file of files) {
    const lines = readFileSync(file, 'utf8').split('\n');
    const count = lines.at(-1) === '' ? lines.length - 1 : lines.length;
    if (count <= maxLines) continue;
    if (lines.slice(0, 10).some((line) => /^\s*(?:\/\/|\*|\/\*\*?)\s*size:/.test(line))) continue;
    problems.push({
      file: relative(root, file).split(sep).join('/'),
      line: 1,
      message: `${count} lines, over ${maxLines}: split it, or say why it is one file in a \`// size: …\` comment at its top`,
    });
  }
  return problems;
}

/** The README, when it has more than `maxLines` lines. */
export function longReadme(root: string, maxLines = README_MAX_LINES): RepoProblem[] {
  const path = join(root, 'README.md');
  if (!existsSync(path)) return [];
  const lines = readFileSync(path, 'utf8').split('\n');
  const count = lines.at(-1) === '' ? lines.length - 1 : lines.length;
  return count <= maxLines
    ? []
    : [{ file: 'README.md', line: 1, message: `${count} lines, over ${maxLines}: the README is the first screen; move the detail into docs/ and link it` }];
}

/** Every check over the repository at `root`. */
export function checkRepository(root: string): RepoProblem[] {
  const docs = DOC_FILES.flatMap((entry) => {
    const path = join(root, entry);
    if (!existsSync(path)) return [];
    return statSync(path).isDirectory() ? walk(path, (f) => f.endsWith('.md')) : [path];
  });
  const code = CODE_DIRS.flatMap((dir) => walk(join(root, dir), (f) => /\.(ts|cjs|mjs|java)$/.test(f)));
  const sources = walk(join(root, 'src'), (f) => f.endsWith('.ts') && !f.endsWith('.spec.ts'));
  return [...deadLinksInDocs(root, docs), ...deadSeeReferences(root, code), ...longFiles(root, sources), ...longReadme(root)];
}

if (require.main === module) {
  const root = resolve(__dirname, '..', '..', '..');
  const problems = checkRepository(root);
  for (const p of problems) process.stderr.write(`${p.file}:${p.line}: ${p.message}\n`);
  if (problems.length > 0) process.exitCode = 1;
  else process.stdout.write('repository checks: no dead links or anchors, no overlong files\n');
}
