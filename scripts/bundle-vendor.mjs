/**
 * `npm run build`'s second step: the npm packages of `mirrorflow run`'s start that ship as many
 * small files, each bundled into one CommonJS file under dist/src/vendor/ that the code imports by
 * a `#` name of package.json's `imports` (`#rxjs` for rxjs, and so on). Node reads, resolves and
 * compiles every file of a package on its own, so loading them file by file was most of the
 * start (issue 42 item 9), in CPU before the first request, each package required alone:
 *
 *   inversify  ~370 ES modules   about 145 ms → 15 ms
 *   rxjs        223 files         about 105 ms → 20 ms (its `rxjs/testing` in the same bundle, loaded on use)
 *   zod          95 files         about  65 ms → 35 ms
 *   yaml         72 files         about  45 ms → 11 ms
 *   winston      about 90 files with its dependencies, about 50 ms → 25 ms
 *   kafkajs     147 files         (see below)
 *
 * Each bundle's module is the package's own `module.exports`, so `import x from`, named imports
 * and `instanceof` behave as with the package itself; everything in src/, test/ and plugins/
 * imports the `#` name (eslint refuses the package's), so a process has one copy of each.
 * reflect-metadata stays outside, so the process has one metadata registry. The packages stay
 * dependencies of package.json: their types come from there (`types` of each `imports` entry),
 * and the licenses travel with them.
 *
 * kafkajs is bundled with nine of its private modules replaced by mirrorflow's (the table
 * `KAFKAJS_REPLACEMENTS` of src/kafka/wire/kafkajs-internals.ts, read from its build in dist):
 * wherever kafkajs requires one of them, the bundle requires mirrorflow's module from dist
 * instead (`../kafka/wire/<file>.js`, beside the bundle), so kafkajs binds our codec when it loads,
 * as it did when src/kafka/wire/install.ts put ours in `require`'s cache. The private modules
 * mirrorflow reads (`KAFKAJS_INTERNAL_MODULES`) are its second export, `internal(path)`.
 */
import { build } from 'esbuild';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vendor = join(root, 'dist', 'src', 'vendor');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Their package.json is not always among their exports; read the version pinned by ours.
const versionOf = (name) => manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];

const wire = createRequire(import.meta.url)(join(root, 'dist', 'src', 'kafka', 'wire', 'kafkajs-internals.js'));
const resolveFrom = (dir, request) => createRequire(join(dir, 'noop.js')).resolve(request);

/** kafkajs's file of each replaced module → ours (file under src/kafka/wire, export). */
const replacements = new Map(Object.entries(wire.KAFKAJS_PATHS).map(([name, path]) => [resolveFrom(root, path), { name, ...wire.KAFKAJS_REPLACEMENTS[name] }]));
const replaced = new Set();

/** Resolves kafkajs's `require` of a replaced module to ours, left to Node at run time. */
const mirrorflowWire = {
  name: 'mirrorflow-wire',
  setup(build) {
    build.onResolve({ filter: /^\.\.\/kafka\/wire\//, namespace: 'mirrorflow-wire' }, (args) => ({ path: args.path, external: true }));
    build.onResolve({ filter: /.*/ }, (args) => {
      if (args.namespace !== 'file' || !args.resolveDir) return undefined;
      let file;
      try {
        file = resolveFrom(args.resolveDir, args.path);
      } catch {
        return undefined;
      }
      const ours = replacements.get(file);
      if (ours === undefined) return undefined;
      replaced.add(ours.name);
      return { path: ours.file, namespace: 'mirrorflow-wire', pluginData: ours };
    });
    build.onLoad({ filter: /.*/, namespace: 'mirrorflow-wire' }, (args) => ({
      contents: `module.exports = require(${JSON.stringify(`../kafka/wire/${args.pluginData.file}.js`)})[${JSON.stringify(args.pluginData.export)}];\n`,
      loader: 'js',
      resolveDir: vendor,
    }));
  },
};

const kafkajsEntry = [
  "module.exports = { kafkajs: require('kafkajs'), internal };",
  'const internals = {',
  ...wire.KAFKAJS_INTERNAL_MODULES.map((path) => `  ${JSON.stringify(path)}: () => require(${JSON.stringify(path)}),`),
  '};',
  'function internal(path) {',
  '  const load = internals[path];',
  "  if (load === undefined) throw new Error(`kafkajs's bundle has no ${path}: add it to KAFKAJS_INTERNAL_MODULES (src/kafka/wire/kafkajs-internals.ts) and build again`);",
  '  return load();',
  '}',
].join('\n');

/** A bundle's code, beside the module of its name that loads it (through V8's code cache on Node 20). */
const codeFile = (file) => file.replace(/\.js$/, '.code.js');

/** `file`: the bundle under dist/src/vendor; `entry`: its module's source; `note`: what the banner adds. */
const bundles = [
  // inversify ships ES modules only: its namespace, as CommonJS.
  { file: 'inversify.js', packages: ['inversify'], entry: "export * from 'inversify';", note: ' and its @inversifyjs packages (MIT license)' },
  // rxjs/testing's TestScheduler patches rxjs's schedulers and timers: it must be the same copy.
  {
    file: 'rxjs-bundle.js',
    packages: ['rxjs'],
    entry: "module.exports = { rxjs: require('rxjs'), get testing() { return require('rxjs/testing'); } };",
    note: ' and rxjs/testing (Apache-2.0 license); rxjs.js and rxjs-testing.js are its two modules',
  },
  { file: 'zod.js', packages: ['zod'], entry: "module.exports = require('zod');", note: ' (MIT license)' },
  { file: 'yaml.js', packages: ['yaml'], entry: "module.exports = require('yaml');", note: ' (ISC license)' },
  { file: 'winston.js', packages: ['winston'], entry: "module.exports = require('winston');", note: ' and its dependencies (MIT licenses)' },
  {
    file: 'kafkajs-bundle.js',
    packages: ['kafkajs'],
    entry: kafkajsEntry,
    plugins: [mirrorflowWire],
    note: ' (MIT license) with nine of its modules replaced by src/kafka/wire; kafkajs.js and kafkajs-internal.js are its two modules',
  },
];

for (const bundle of bundles) {
  const versions = bundle.packages.map((name) => `${name} ${versionOf(name)}`).join(', ');
  await build({
    stdin: { contents: bundle.entry, resolveDir: root, sourcefile: `${bundle.file.replace(/\.js$/, '')}-entry.js`, loader: 'js' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    target: 'node20',
    external: ['reflect-metadata', 'reflect-metadata/*'],
    plugins: bundle.plugins ?? [],
    outfile: join(vendor, codeFile(bundle.file)),
    sourcemap: true,
    banner: { js: `// ${versions}${bundle.note}, bundled by scripts/bundle-vendor.mjs.` },
    logLevel: 'warning',
  });
  const hash = createHash('sha256')
    .update(readFileSync(join(vendor, codeFile(bundle.file))))
    .digest('hex')
    .slice(0, 16);
  writeFileSync(
    join(vendor, bundle.file),
    [
      `// ${versions}${bundle.note}, bundled by scripts/bundle-vendor.mjs. Its code is ${codeFile(bundle.file)},`,
      "// run through V8's code cache when the CLI turned that on (src/cli/code-cache.ts).",
      `require('../cli/code-cache.js').loadBundle(module, require('node:path').join(__dirname, ${JSON.stringify(codeFile(bundle.file))}), '${hash}');`,
      '',
    ].join('\n'),
  );
}

const missing = [...replacements.values()].filter(({ name }) => !replaced.has(name));
if (missing.length > 0) throw new Error(`kafkajs no longer requires ${missing.map((m) => m.name).join(', ')}: read its diff (src/kafka/wire/README.md)`);

// The two modules of the rxjs bundle that `#rxjs` and `#rxjs/testing` name.
const view = (part) =>
  `// rxjs ${versionOf('rxjs')}${part === 'testing' ? '/testing' : ''}, from its bundle (scripts/bundle-vendor.mjs).\nmodule.exports = require('./rxjs-bundle.js').${part};\n`;
writeFileSync(join(vendor, 'rxjs.js'), view('rxjs'));
writeFileSync(join(vendor, 'rxjs-testing.js'), view('testing'));

// And the two of kafkajs's.
writeFileSync(
  join(vendor, 'kafkajs.js'),
  `// kafkajs ${versionOf('kafkajs')}, from its bundle (scripts/bundle-vendor.mjs).\nmodule.exports = require('./kafkajs-bundle.js').kafkajs;\n`,
);
writeFileSync(
  join(vendor, 'kafkajs-internal.js'),
  `// kafkajs ${versionOf('kafkajs')}'s private modules, from its bundle (scripts/bundle-vendor.mjs).\nmodule.exports = require('./kafkajs-bundle.js').internal;\n`,
);
