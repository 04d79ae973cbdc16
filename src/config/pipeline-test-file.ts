/**
 * The files `mirrorflow test` reads: pipeline tests in YAML. A file names the transforms under
 * test — a flow of a pipeline file (`pipeline:`, YAML or mm2.properties, and `flow:` when it has
 * several), or transforms written inline (`flow: { transforms: … }`) — and lists tests, each
 * input records and the records expected out (or the error expected). The format is described
 * in docs/transforms.md ("Testing pipelines").
 */
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { LineCounter, parseDocument } from '#yaml';
import { z } from '#zod';
import { ConfigError, type ConfigIssue } from '../core/errors';
import { REGISTRY_FREE_CONVERTER_NAMES } from '../plugins';
import { formatPath, type ConfigPath } from './config-path';
import { YamlLocator } from './yaml-locator';

const bytes = z.string().describe('Bytes, as base64.');
const text = z.string();

const headerSchema = z.strictObject({
  key: z.string(),
  value: z.string().nullable().optional().describe('UTF-8 text, or null for a null value.'),
  value_base64: bytes.optional(),
});

/** A record: `key`/`value` go through the flow's converter; `*_text` and `*_base64` are raw bytes. */
const recordSchema = z.strictObject({
  topic: z.string().min(1).optional(),
  partition: z.number().int().min(0).optional(),
  timestamp: z.number().int().optional(),
  key: z.unknown().optional(),
  key_text: text.optional(),
  key_base64: bytes.optional(),
  value: z.unknown().optional(),
  value_text: text.optional(),
  value_base64: bytes.optional(),
  headers: z.array(headerSchema).optional(),
});

export type TestRecordSpec = z.output<typeof recordSchema>;
export type TestHeaderSpec = z.output<typeof headerSchema>;

const inlineFlowSchema = z.strictObject({
  transforms: z.array(z.looseObject({ type: z.string().min(1) })).min(1),
  converter: z
    .strictObject({ key: z.enum(REGISTRY_FREE_CONVERTER_NAMES).default('bytes'), value: z.enum(REGISTRY_FREE_CONVERTER_NAMES).default('bytes') })
    .prefault({}),
  errors: z.strictObject({ tolerance: z.enum(['none', 'all']).default('none') }).prefault({}),
});

const testSchema = z
  .strictObject({
    name: z.string().min(1),
    input: z.array(recordSchema).min(1),
    output: z.array(recordSchema).optional(),
    dead_letters: z.number().int().min(0).optional(),
    error: z.string().min(1).optional(),
  })
  .refine((t) => (t.output === undefined) !== (t.error === undefined), {
    message: 'give either output (the records expected) or error (the failure expected)',
  });

const fileSchema = z
  .strictObject({
    pipeline: z.string().min(1).optional(),
    flow: z.union([z.string().min(1), inlineFlowSchema]).optional(),
    tests: z.array(testSchema).min(1),
  })
  .refine((f) => f.pipeline !== undefined || typeof f.flow === 'object', {
    message: 'name a pipeline file (pipeline: …) or write the transforms inline (flow: { transforms: … })',
  })
  .refine((f) => f.pipeline === undefined || typeof f.flow !== 'object', {
    message: 'with pipeline: …, flow names one of its flows (like primary->backup)',
    path: ['flow'],
  });

export type InlineTestFlow = z.output<typeof inlineFlowSchema>;
export type PipelineTestCase = z.output<typeof testSchema>;

export interface PipelineTestFile {
  readonly file: string;
  /** The pipeline file, absolute (relative to the test file as written). */
  readonly pipeline?: string;
  /** A flow of the pipeline by name, or the inline flow. */
  readonly flow?: string | InlineTestFlow;
  readonly tests: readonly PipelineTestCase[];
  /** Where a test was written, for messages. */
  readonly lineOf: (path: ConfigPath) => number | undefined;
}

/** Reads and checks a test file; every problem of it is one ConfigError naming file, line and path. */
export async function readPipelineTestFile(file: string): Promise<PipelineTestFile> {
  let source: string;
  try {
    source = await readFile(file, 'utf8');
  } catch (error) {
    throw new ConfigError([{ file, message: `cannot read the test file: ${(error as Error).message}` }]);
  }
  const lineCounter = new LineCounter();
  const doc = parseDocument(source, { lineCounter, prettyErrors: false });
  if (doc.errors.length > 0) {
    throw new ConfigError(doc.errors.map((e) => ({ file, line: lineCounter.linePos(e.pos[0]).line, message: e.message.split('\n')[0]! })));
  }
  const locator = new YamlLocator(doc, lineCounter);
  const lineOf = (path: ConfigPath): number | undefined => locator.positionOf(path)?.line;
  const result = fileSchema.safeParse(doc.toJS());
  if (!result.success) {
    const issues: ConfigIssue[] = result.error.issues.map((issue) => {
      const path = issue.path.filter((p): p is string | number => typeof p !== 'symbol');
      const line = lineOf(path);
      return { file, ...(line === undefined ? {} : { line }), ...(path.length === 0 ? {} : { path: formatPath(path) }), message: issue.message };
    });
    throw new ConfigError(issues);
  }
  const { pipeline, flow, tests } = result.data;
  return {
    file,
    ...(pipeline === undefined ? {} : { pipeline: resolve(dirname(file), pipeline) }),
    ...(flow === undefined ? {} : { flow }),
    tests,
    lineOf,
  };
}
