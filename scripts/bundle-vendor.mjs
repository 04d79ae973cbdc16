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
 *
 * Each bundle's module is the package's own `module.exports`, so `import x from`, named imports
 * and `instanceof` behave as with the package itself; everything in src/, test/ and plugins/
 * imports the `#` name (eslint refuses the package's), so a process has one copy of each.
 * reflect-metadata stays outside, so the process has one metadata registry. The packages stay
 * dependencies of package.json: their types come from there (`types` of each `imports` entry),
 * and the licenses travel with them.
 */
import { build } from 'esbuild';
import { readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const vendor = join(root, 'dist', 'src', 'vendor');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
// Their package.json is not always among their exports; read the version pinned by ours.
const versionOf = (name) => manifest.dependencies?.[name] ?? manifest.devDependencies?.[name];

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
    outfile: join(vendor, bundle.file),
    sourcemap: true,
    banner: { js: `// ${versions}${bundle.note}, bundled by scripts/bundle-vendor.mjs.` },
    logLevel: 'warning',
  });
}

// The two modules of the rxjs bundle that `#rxjs` and `#rxjs/testing` name.
const view = (part) =>
  `// rxjs ${versionOf('rxjs')}${part === 'testing' ? '/testing' : ''}, from its bundle (scripts/bundle-vendor.mjs).\nmodule.exports = require('./rxjs-bundle.js').${part};\n`;
writeFileSync(join(vendor, 'rxjs.js'), view('rxjs'));
writeFileSync(join(vendor, 'rxjs-testing.js'), view('testing'));
