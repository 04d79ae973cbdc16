/**
 * `mirrorflow test FILE…`: runs the pipeline tests of each file (src/config/pipeline-test-file.ts)
 * without Kafka. Each test's input records go through the flow's transforms as `run` would send
 * them — under their remote topic, through the flow's converters, failures handled by its
 * `errors.tolerance` — and what comes out is compared with what the test expects, field by field.
 */
import { isDeepStrictEqual } from 'node:util';
import { ConfigError, type ConfigIssue } from '../../core/errors';
import { silentLogger } from '../../core/ports/logger';
import type { MirrorRecord, RecordHeader } from '../../core/record';
import { readPipelineTestFile, type FlowConfig, type PipelineTestCase, type PipelineTestFile, type TestRecordSpec } from '../../config';
import {
  buildTransformChain,
  createPluginRegistry,
  projectPluginsDir,
  runWithTolerance,
  validateTransformSteps,
  type FlowConverters,
  type TransformChain,
  type TransformStep,
} from '../../plugins';
import { flowReplicationPolicy } from '../wiring/flow-policy';
import { loadPipeline } from '../load-pipeline';

export interface PipelineTestOptions {
  readonly pluginDirs?: readonly string[];
}

export interface TestOutcome {
  readonly name: string;
  readonly line?: number;
  /** What differs from the expectation; empty when the test passed. */
  readonly differences: readonly string[];
}

export interface TestFileOutcome {
  readonly file: string;
  readonly tests: readonly TestOutcome[];
}

/** The flow under test: its chain and what the chain's records need around it. */
interface FlowUnderTest {
  readonly chain: TransformChain;
  readonly converters: FlowConverters;
  readonly tolerance: 'none' | 'all';
  readonly remoteTopic: (topic: string) => string;
}

export async function runPipelineTestFile(file: string, options: PipelineTestOptions = {}): Promise<TestFileOutcome> {
  const spec = await readPipelineTestFile(file);
  const flow = await flowUnderTest(spec, options);
  const tests = spec.tests.map((test, index) => {
    const line = spec.lineOf(['tests', index]);
    const records = test.input.map((record, i) => inputRecord(spec, record, i, index, flow));
    return { name: test.name, ...(line === undefined ? {} : { line }), differences: compare(test, flow, records) };
  });
  return { file, tests };
}

async function flowUnderTest(spec: PipelineTestFile, options: PipelineTestOptions): Promise<FlowUnderTest> {
  if (spec.pipeline === undefined) {
    const inline = spec.flow as Exclude<PipelineTestFile['flow'], string | undefined>;
    const registry = createPluginRegistry({ pluginDirs: [projectPluginsDir(), ...(options.pluginDirs ?? [])] });
    const steps: TransformStep[] = inline.transforms.map(({ type, ...rest }, i) => ({ type, options: rest, path: `flow.transforms[${i}]` }));
    const issues = validateTransformSteps(steps, registry, inline.converter);
    if (issues.length > 0) throw new ConfigError(issues.map((issue) => ({ ...issue, file: spec.file })));
    const chain = buildTransformChain(steps, registry, { flow: { source: 'source', target: 'target' }, logger: silentLogger, converters: inline.converter });
    return { chain, converters: inline.converter, tolerance: inline.errors.tolerance, remoteTopic: (topic) => topic };
  }
  const { config, registry } = await loadPipeline(spec.pipeline, { pluginDirs: options.pluginDirs ?? [] });
  const flow = pickFlow(spec, config.flows);
  const policy = flowReplicationPolicy(flow);
  const chain = buildTransformChain(flow.transforms, registry, {
    flow: { source: flow.source, target: flow.target },
    logger: silentLogger,
    converters: flow.converter,
  });
  return { chain, converters: flow.converter, tolerance: flow.errors.tolerance, remoteTopic: (topic) => policy.formatRemoteTopic(flow.source, topic) };
}

function pickFlow(spec: PipelineTestFile, flows: readonly FlowConfig[]): FlowConfig {
  const names = flows.map((f) => f.name).join(', ');
  const line = spec.lineOf(['flow']);
  const at: ConfigIssue = { file: spec.file, ...(line === undefined ? {} : { line }), path: 'flow', message: '' };
  if (typeof spec.flow === 'string') {
    const found = flows.find((f) => f.name === spec.flow);
    if (found === undefined)
      throw new ConfigError([{ ...at, message: `the pipeline ${spec.pipeline} has no flow "${spec.flow}"`, hint: `its flows: ${names}` }]);
    return found;
  }
  if (flows.length > 1)
    throw new ConfigError([
      { ...at, message: `the pipeline ${spec.pipeline} has ${flows.length} flows: name the one under test`, hint: `flow: one of ${names}` },
    ]);
  return flows[0]!;
}

function compare(test: PipelineTestCase, flow: FlowUnderTest, records: readonly MirrorRecord[]): string[] {
  const run = runWithTolerance(flow.chain, records, flow.tolerance);
  if (test.error !== undefined) {
    if (run.failure === undefined)
      return [`expected the flow to stop with an error containing ${JSON.stringify(test.error)}, but it went on (${run.output.length} records out)`];
    return run.failure.message.includes(test.error) ? [] : [`expected an error containing ${JSON.stringify(test.error)}, got: ${run.failure.message}`];
  }
  const differences: string[] = [];
  if (run.failure !== undefined) differences.push(`the flow stopped: ${run.failure.message}`);
  const deadLetters = test.dead_letters ?? 0;
  if (run.deadLetters.length !== deadLetters) {
    const why = run.deadLetters.map((d) => `offset ${d.record.source.offset}: ${d.error.reason}`).join('; ');
    differences.push(`dead letters: expected ${deadLetters}, got ${run.deadLetters.length}${why === '' ? '' : ` (${why})`}`);
  }
  const expected = test.output ?? [];
  if (expected.length !== run.output.length) differences.push(`output: expected ${expected.length} records, got ${run.output.length}`);
  expected.forEach((want, i) => {
    const got = run.output[i];
    if (got === undefined) differences.push(`output[${i}]: missing; expected ${describeExpected(want)}`);
    else differences.push(...compareRecord(`output[${i}]`, want, got, flow.converters));
  });
  for (let i = expected.length; i < run.output.length; i++)
    differences.push(`output[${i}]: not expected, got ${describeRecord(run.output[i]!, flow.converters)}`);
  return differences;
}

function compareRecord(at: string, want: TestRecordSpec, got: MirrorRecord, converters: FlowConverters): string[] {
  const out: string[] = [];
  const differ = (field: string, expected: string, actual: string) => out.push(`${at}.${field}: expected ${expected}, got ${actual}`);
  if (want.topic !== undefined && want.topic !== got.topic) differ('topic', JSON.stringify(want.topic), JSON.stringify(got.topic));
  if (want.partition !== undefined && want.partition !== got.partition) differ('partition', String(want.partition), String(got.partition));
  if (want.timestamp !== undefined && want.timestamp !== got.timestamp) differ('timestamp', String(want.timestamp), String(got.timestamp));
  for (const side of ['key', 'value'] as const) {
    const expected = expectedBytes(want, side, converters[side]);
    if (expected === undefined) continue;
    if (!sameBytes(expected, got[side], converters[side])) differ(side, showBytes(expected, converters[side]), showBytes(got[side], converters[side]));
  }
  if (want.headers !== undefined) {
    const expected = want.headers.map(headerOf);
    const same =
      expected.length === got.headers.length && expected.every((h, i) => h.key === got.headers[i]!.key && sameBytes(h.value, got.headers[i]!.value, 'bytes'));
    if (!same) differ('headers', showHeaders(expected), showHeaders(got.headers));
  }
  return out;
}

/** The input record, under its remote topic, at offset `index` of partition (default) 0. */
function inputRecord(spec: PipelineTestFile, record: TestRecordSpec, index: number, test: number, flow: FlowUnderTest): MirrorRecord {
  const at = (side: string): string => `tests[${test}].input[${index}].${side}`;
  const encode = (side: 'key' | 'value'): Buffer | null => {
    try {
      return expectedBytes(record, side, flow.converters[side]) ?? null;
    } catch (error) {
      const line = spec.lineOf(['tests', test, 'input', index, side]);
      throw new ConfigError([{ file: spec.file, ...(line === undefined ? {} : { line }), path: at(side), message: (error as Error).message }]);
    }
  };
  const topic = record.topic ?? 'topic';
  const partition = record.partition ?? 0;
  return {
    source: { topic, partition, offset: index },
    topic: flow.remoteTopic(topic),
    partition,
    timestamp: record.timestamp ?? 0,
    key: encode('key'),
    value: encode('value'),
    headers: (record.headers ?? []).map(headerOf),
  };
}

/** The bytes a record spec gives for one side; undefined when it gives none. */
function expectedBytes(record: TestRecordSpec, side: 'key' | 'value', converter: FlowConverters['key']): Buffer | null | undefined {
  const base64 = record[`${side}_base64`];
  if (base64 !== undefined) return Buffer.from(base64, 'base64');
  const text = record[`${side}_text`];
  if (text !== undefined) return Buffer.from(text, 'utf8');
  if (!(side in record)) return undefined;
  const value = record[side];
  if (value === null || value === undefined) return null;
  if (converter === 'json') return Buffer.from(JSON.stringify(value), 'utf8');
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (typeof value === 'number' || typeof value === 'boolean') return Buffer.from(String(value), 'utf8');
  throw new Error(
    `a structured ${side} needs the json converter (the flow's ${side} converter is ${converter}): write it as ${side}_text or ${side}_base64, or set converter.${side}: json`,
  );
}

function sameBytes(expected: Buffer | null, actual: Buffer | null, converter: FlowConverters['key']): boolean {
  if (expected === null || actual === null) return expected === actual;
  if (expected.equals(actual)) return true;
  if (converter !== 'json') return false;
  // JSON compares as data: spacing and key order do not matter.
  const parsed = (b: Buffer): unknown => {
    try {
      return JSON.parse(b.toString('utf8'));
    } catch {
      return Symbol('not JSON');
    }
  };
  return isDeepStrictEqual(parsed(expected), parsed(actual));
}

function showBytes(bytes: Buffer | null, converter: FlowConverters['key']): string {
  if (bytes === null) return 'null';
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  if (text.includes('\uFFFD')) return `base64:${bytes.toString('base64')}`;
  if (converter === 'json') {
    try {
      return JSON.stringify(JSON.parse(text));
    } catch {
      return `${JSON.stringify(text)} (not JSON)`;
    }
  }
  return JSON.stringify(text);
}

function headerOf(header: NonNullable<TestRecordSpec['headers']>[number]): RecordHeader {
  const value =
    header.value_base64 !== undefined
      ? Buffer.from(header.value_base64, 'base64')
      : header.value === null || header.value === undefined
        ? null
        : Buffer.from(header.value, 'utf8');
  return { key: header.key, value };
}

function showHeaders(headers: readonly RecordHeader[]): string {
  return `[${headers.map((h) => `${h.key}: ${showBytes(h.value, 'bytes')}`).join(', ')}]`;
}

function describeRecord(record: MirrorRecord, converters: FlowConverters): string {
  return `{ topic: ${record.topic}, key: ${showBytes(record.key, converters.key)}, value: ${showBytes(record.value, converters.value)} }`;
}

function describeExpected(record: TestRecordSpec): string {
  return JSON.stringify(record);
}
