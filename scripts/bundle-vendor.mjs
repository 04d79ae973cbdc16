/**
 * `npm run build`'s second step: inversify, which ships as about 370 ES modules, bundled into one
 * CommonJS file (dist/src/vendor/inversify.js) that the code imports as `#inversify` (package.json
 * `imports`). Loading it file by file was the largest share of `mirrorflow run`'s start: about
 * 145 ms of CPU before the first request, against about 15 ms as one file (issue 42 item 9).
 * reflect-metadata stays outside, so the process has one metadata registry.
 */
import { build } from 'esbuild';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
// Its package.json is not among its exports; read the version pinned by ours.
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const version = manifest.dependencies?.inversify ?? manifest.devDependencies?.inversify;

await build({
  stdin: { contents: "export * from 'inversify';", resolveDir: root, sourcefile: 'inversify-entry.js', loader: 'js' },
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  external: ['reflect-metadata', 'reflect-metadata/*'],
  outfile: join(root, 'dist', 'src', 'vendor', 'inversify.js'),
  sourcemap: true,
  banner: { js: `// inversify ${version} and its @inversifyjs packages (MIT license), bundled by scripts/bundle-vendor.mjs.` },
  logLevel: 'warning',
});
