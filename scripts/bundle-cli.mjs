/**
 * `npm run build`'s third step: the command line as one file, dist/src/cli/cli-bundle.code.js, that
 * main.js runs through V8's code cache (src/cli/load-cli.ts). It holds cli.js and every module of
 * dist it imports — commands and their actions too, evaluated only when `require`d, so a command
 * runs no more code than before — the packages' bundles of dist/src/vendor (their code, not their
 * stubs), and commander. tsc has compiled the TypeScript by then, with the decorator metadata
 * inversify reads, so this bundles dist's JavaScript, not the sources.
 *
 * Finding, reading and compiling ~370 files of dist one by one was most of `mirrorflow run`'s
 * start once the packages were bundled (issue 42 item 9, docs/performance-notes.md).
 *
 * - Each bundled module keeps its own `__dirname` and `__filename` (the demo's pipeline, the
 *   built-in plugins folder, the launcher's watchdog, the plugin API's files), set from the
 *   bundle's place, so an installed copy works wherever it lies.
 * - kafkajs's bundle requires mirrorflow's wire modules from dist; here those are the same modules
 *   as the rest of the CLI imports (esbuild resolves them), so kafkajs runs ours.
 * - Every bundled module of dist is put in `require`'s cache under its file
 *   (src/cli/bundled-modules.ts), so a plugin that requires the plugin API gets the bundle's.
 * - Packages of node_modules but commander stay outside: native codecs, and those loaded on use.
 * - The source map goes through tsc's maps to src/ (`node --enable-source-maps`); each module's
 *   code in the bundle is under a `// dist/…` line naming its file.
 * - cli-bundle.json: what load-cli.ts reads (file, hash, tsc's build info time, by which a `tsc`
 *   after this step is noticed); cli-bundle.inputs.json: each input's hash, which a spec compares
 *   with dist (src/cli/cli-bundle.spec.ts).
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const cli = join(dist, 'src', 'cli');
const out = join(cli, 'cli-bundle.code.js');
const toPosix = (path) => path.split(sep).join('/');

/** The stubs of dist/src/vendor that load a package's bundle through the code cache: here, its code itself. */
const VENDOR_STUB = /[\\/]dist[\\/]src[\\/]vendor[\\/](inversify|rxjs-bundle|zod|yaml|winston|kafkajs-bundle)\.js$/;
/** Loaded by main.js before the bundle: a copy inside it would be a second instance. */
const NOT_BUNDLED = ['src/cli/main.js', 'src/cli/compile-cache.js', 'src/cli/code-cache.js', 'src/cli/load-cli.js'];
const IN_DIST = /[\\/]dist[\\/].*\.js$/;

const mirrorflowDist = {
  name: 'mirrorflow-dist',
  setup(build) {
    // Packages stay outside but commander (read at every start, a few files).
    build.onResolve({ filter: /^[^./#]/ }, (args) =>
      args.path === 'commander' || args.path.startsWith('commander/') || args.path.startsWith('node:') ? undefined : { path: args.path, external: true },
    );
    build.onLoad({ filter: VENDOR_STUB }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`./${args.path.slice(dirname(args.path).length + 1).replace(/\.js$/, '.code.js')}`)});\n`,
      resolveDir: dirname(args.path),
      loader: 'js',
    }));
    // A module's own __dirname and __filename, prepended on its first line (tsc's source map stays right below it).
    build.onLoad({ filter: IN_DIST }, (args) => {
      if (!args.path.startsWith(dist + sep)) return undefined;
      const contents = readFileSync(args.path, 'utf8');
      if (!/\b__(dirname|filename)\b/.test(contents)) return undefined;
      const file = toPosix(relative(dist, args.path));
      const dir = toPosix(relative(dist, dirname(args.path)));
      const own = `var __filename = require("node:path").join(__mirrorflowDist, ${JSON.stringify(file)}), __dirname = require("node:path").join(__mirrorflowDist, ${JSON.stringify(dir)}); `;
      return { contents: own + contents.replace(/^#!.*/, ''), resolveDir: dirname(args.path), loader: 'js' };
    });
  },
};

const options = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  plugins: [mirrorflowDist],
  // The bundle's own folder is dist/src/cli (its __dirname as the code cache or `require` runs it).
  banner: {
    js: '// mirrorflow\'s command line and the packages it runs, bundled by scripts/bundle-cli.mjs.\nvar __mirrorflowDist = require("node:path").join(__dirname, "..", "..");',
  },
  logLevel: 'warning',
  metafile: true,
};

// First what cli.js imports, then the bundle itself: an entry that shares each of those modules
// through `require`'s cache, each loaded on first use, and then runs cli.js.
const first = await build({ ...options, entryPoints: [join(cli, 'cli.js')], write: false, outfile: out });
const inputs = Object.keys(first.metafile.inputs)
  .map((input) => toPosix(relative(dist, join(root, input))))
  .filter((file) => !file.startsWith('..'))
  .sort();
const twice = inputs.filter((file) => NOT_BUNDLED.includes(file));
if (twice.length > 0) throw new Error(`cli.js imports ${twice.join(', ')}, which main.js loads before the bundle: it would run twice`);
const entry = [
  "require('./src/cli/bundled-modules.js').shareBundledModules(__mirrorflowDist, {",
  ...inputs.map((file) => `  ${JSON.stringify(file)}: () => require(${JSON.stringify(`./${file}`)}),`),
  '});',
  "require('./src/cli/cli.js');",
].join('\n');
const result = await build({
  ...options,
  stdin: { contents: entry, resolveDir: dist, sourcefile: 'cli-bundle-entry.js', loader: 'js' },
  outfile: out,
  sourcemap: true,
});

// The bundle runs from V8's code cache, where Node 20 gives a dynamic `import()` no loader ("A
// dynamic import callback was not specified"): a package the bundle leaves outside is `require`d.
const dynamic = Object.values(result.metafile.outputs).flatMap((o) => o.imports.filter((i) => i.kind === 'dynamic-import' && i.external).map((i) => i.path));
if (dynamic.length > 0) throw new Error(`the CLI's bundle imports ${dynamic.join(', ')} with import(), which fails from the code cache: require it instead`);

const hash = createHash('sha256').update(readFileSync(out)).digest('hex').slice(0, 16);
const tsBuildInfo = statSync(join(dist, 'tsconfig.tsbuildinfo'), { throwIfNoEntry: false });
writeFileSync(join(cli, 'cli-bundle.json'), `${JSON.stringify({ code: 'cli-bundle.code.js', hash, tsBuildInfoMtimeMs: tsBuildInfo?.mtimeMs ?? null })}\n`);
const hashes = Object.fromEntries(
  Object.keys(result.metafile.inputs)
    .map((input) => join(root, input))
    .filter((file) => !toPosix(relative(dist, file)).startsWith('..') && existsSync(file))
    .map((file) => [toPosix(relative(dist, file)), createHash('sha256').update(readFileSync(file)).digest('hex')])
    .sort(([a], [b]) => a.localeCompare(b)),
);
writeFileSync(join(cli, 'cli-bundle.inputs.json'), `${JSON.stringify(hashes, undefined, 1)}\n`);
