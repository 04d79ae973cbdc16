/**
 * Layer rules of docs/architecture.md, checked in CI (`npm run lint`) instead of by hope.
 * Each layer of src/ may import only the layers listed for it (and itself); see the table in
 * docs/architecture.md. Type-only imports count too (tsPreCompilationDeps), since they couple code as well.
 */

/** layer -> the other src/ layers it may import. */
const layers = {
  core: [],
  policy: ['core'],
  formats: ['core'],
  kafka: ['core'],
  registry: ['core'],
  plugins: ['core'],
  flow: ['core', 'policy', 'formats', 'plugins'],
  local: ['core'],
  config: ['core', 'policy', 'plugins'],
  telemetry: ['core'],
  pipeline: ['core', 'policy', 'formats', 'kafka', 'registry', 'plugins', 'flow', 'local', 'config', 'telemetry'],
  // cli may use local for the `mirrorflow local` command.
  cli: ['pipeline', 'config', 'telemetry', 'local', 'core'],
};

const npm = ['npm', 'npm-dev', 'npm-optional', 'npm-peer', 'npm-bundled', 'npm-no-pkg', 'npm-unknown'];

const layerRules = Object.entries(layers).map(([layer, allowed]) => ({
  name: `layer-${layer}`,
  comment: `src/${layer} may import only ${allowed.length > 0 ? allowed.map((l) => `src/${l}`).join(', ') : 'nothing else in src'} (docs/architecture.md, Layers).`,
  severity: 'error',
  from: { path: `^src/${layer}/` },
  to: { path: '^src/', pathNot: `^src/(${[layer, ...allowed].join('|')})/` },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'core-only-rxjs',
      comment: 'src/core holds types, errors, retry and ports; of npm packages it may use rxjs only.',
      severity: 'error',
      from: { path: '^src/core/' },
      to: { dependencyTypes: npm, pathNot: 'node_modules/rxjs/' },
    },
    {
      name: 'local-no-packages',
      comment: 'src/local uses node built-ins only (and core): no Kafka client, nothing to install.',
      severity: 'error',
      from: { path: '^src/local/' },
      to: { dependencyTypes: npm },
    },
    {
      name: 'kafkajs-only-in-kafka',
      comment: 'Only src/kafka knows kafkajs and its codecs, so another client can replace it behind the ports.',
      severity: 'error',
      from: { path: '^(src|plugins)/', pathNot: '^src/kafka/' },
      to: { path: 'node_modules/(kafkajs|kafkajs-snappy|@2l/kafkajs-lz4|@mongodb-js/zstd)/' },
    },
    {
      name: 'kafkajs-internals-only-in-wire',
      comment:
        "kafkajs's private modules (kafkajs/src/...) are reached only through src/kafka/wire, the one door to them: its README lists every touch and tripwire.spec.ts guards each. Elsewhere, use kafkajs's public API (../kafkajs) or the wire's typed surface.",
      severity: 'error',
      from: { pathNot: '^src/kafka/wire/' },
      to: { path: 'node_modules/kafkajs/src/' },
    },
    {
      name: 'plugins-only-plugin-api',
      comment: 'Custom plugins in plugins/ see the plugin API only.',
      severity: 'error',
      from: { path: '^plugins/', pathNot: '\\.spec\\.ts$' },
      to: { path: '^src/', pathNot: '^src/plugins/api\\.ts$' },
    },
    {
      name: 'plugin-specs-only-plugin-api',
      comment: "A plugin's own spec may also use the plugin test support (records and contexts).",
      severity: 'error',
      from: { path: '^plugins/.+\\.spec\\.ts$' },
      to: { path: '^src/', pathNot: '^src/plugins/(api|test-support)\\.ts$' },
    },
    {
      name: 'src-not-to-test',
      comment: 'Product code must not depend on the test harness or fixtures.',
      severity: 'error',
      from: { path: '^src/' },
      to: { path: '^test/' },
    },
    {
      name: 'no-circular',
      comment: 'Cycles make load order matter and layers meaningless.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'not-to-unresolvable',
      comment: 'An import that does not resolve is a broken build.',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Not node_modules here: excluded modules vanish from the graph, and the package rules need them.
    exclude: { path: '^dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      mainFields: ['main', 'types', 'typings'],
    },
  },
};
