/**
 * The contract every transform plugin keeps — built-ins, the plugins of `plugins/`, npm packages
 * and scaffolded ones — checked the way a flow runs it: through a one-step transform chain.
 *
 * - config: valid options are accepted; a misspelt option and each given bad configuration are
 *   refused with a message naming the option;
 * - purity: the same input gives the same output, and the input is not changed;
 * - headers: those kept stay in their order, and a null header value stays null;
 * - tombstones: a null key or value never becomes an empty one, and a tombstone stays one; a
 *   step that cannot take a tombstone refuses it with a message (a PluginError), never a crash;
 * - errors: a record the step throws on ends the flow naming the plugin with `errors.tolerance:
 *   none`, and goes to the dead letters with `all` while the others are written.
 *
 * `checkPluginContract` returns the result of every check; `mirrorflow plugins check DIR` prints
 * them, and a plugin's own test can assert on them.
 */
import { isDeepStrictEqual } from 'node:util';
import { PluginError } from '../core/errors';
import { silentLogger } from '../core/ports/logger';
import type { MirrorRecord, RecordHeader } from '../core/record';
import type { ContractSamples, TransformDefinition } from './api';
import { checkTransformDefinition } from './check-transform-definition';
import { BYTES_CONVERTERS, type FlowConverters } from './connect/converters';
import { PluginRegistry } from './registry';
import { runWithTolerance } from './run-with-tolerance';
import { buildTransformChain, validateTransformSteps, type TransformChain } from './transform-chain';

export interface ContractCheck {
  readonly check: string;
  readonly result: 'pass' | 'fail' | 'skip';
  /** Why it failed or was skipped. */
  readonly detail?: string;
}

const STEP = 'transforms[0]';
const MISSPELT = 'contract_misspelt_option';

export function checkPluginContract(definition: TransformDefinition, samples: ContractSamples = {}): ContractCheck[] {
  const problems = checkTransformDefinition(definition);
  if (problems.length > 0) return [fail('definition', problems.join('; '))];
  const converters: FlowConverters = { ...BYTES_CONVERTERS, ...samples.converters };
  const registry = new PluginRegistry([definition]);
  const options = samples.options ?? {};
  const issuesFor = (opts: Readonly<Record<string, unknown>>) =>
    validateTransformSteps([{ type: definition.name, options: opts, path: STEP }], registry, converters);

  const checks: ContractCheck[] = [pass('definition')];
  const valid = issuesFor(options);
  if (valid.length > 0) return [...checks, fail('config: the sample options are accepted', valid.map((i) => `${i.path}: ${i.message}`).join('; '))];
  checks.push(pass('config: the sample options are accepted'));
  checks.push(refusal(issuesFor({ ...options, [MISSPELT]: true }), MISSPELT, 'config: a misspelt option is refused, naming it'));
  for (const bad of samples.invalid ?? []) {
    checks.push(refusal(issuesFor(bad.options), bad.option, `config: ${JSON.stringify(bad.options)} is refused, naming "${bad.option}"`));
  }

  let chain: TransformChain;
  try {
    chain = buildTransformChain([{ type: definition.name, options, path: STEP }], registry, {
      flow: { source: 'primary', target: 'backup' },
      logger: silentLogger,
      converters,
    });
  } catch (error) {
    return [...checks, fail('create', messageOf(error))];
  }

  const inputs = (samples.records ?? [{}]).map((r, i) => sampleRecord(r, i, converters));
  checks.push(purity(chain, inputs));
  checks.push(headers(chain, inputs[0]!));
  checks.push(tombstones(chain, inputs[0]!, samples.keepsTombstones ?? true));
  checks.push(...errorRouting(definition, registry, options, chain, inputs[0]!, samples.failing, converters));
  return checks;
}

function refusal(issues: readonly { path?: string; message: string }[], option: string, check: string): ContractCheck {
  if (issues.length === 0) return fail(check, 'accepted');
  const named = issues.some((i) => (i.path ?? '').split(/[.[\]]/).includes(option) || i.message.includes(option));
  return named ? pass(check) : fail(check, `refused without naming "${option}": ${issues.map((i) => `${i.path ?? ''}: ${i.message}`).join('; ')}`);
}

function purity(chain: TransformChain, inputs: readonly MirrorRecord[]): ContractCheck {
  const check = 'purity: same input, same output; the input is not changed';
  const before = inputs.map(snapshot);
  let first: readonly MirrorRecord[];
  let second: readonly MirrorRecord[];
  try {
    first = chain(inputs.map(frozenCopy));
    second = chain(inputs.map(frozenCopy));
    chain(inputs);
  } catch (error) {
    return fail(check, `threw on the sample records: ${messageOf(error)}`);
  }
  if (!isDeepStrictEqual(first.map(snapshot), second.map(snapshot))) return fail(check, 'two runs on the same records gave different output');
  if (!isDeepStrictEqual(inputs.map(snapshot), before)) return fail(check, 'the input records were changed');
  return pass(check);
}

function headers(chain: TransformChain, base: MirrorRecord): ContractCheck {
  const check = 'headers: kept headers stay in order, null values stay null';
  const input: RecordHeader[] = [
    { key: 'contract-a', value: Buffer.from('1') },
    { key: 'contract-null', value: null },
    { key: 'contract-a', value: Buffer.from('2') },
    { key: 'contract-empty', value: Buffer.alloc(0) },
  ];
  const record = { ...base, headers: [...base.headers, ...input] };
  let out: readonly MirrorRecord[];
  try {
    out = chain([record]);
  } catch (error) {
    return fail(check, `threw: ${messageOf(error)}`);
  }
  if (out.length === 0) return skip(check, 'the sample record was dropped');
  const kept = out[0]!.headers.filter((h) => h.key.startsWith('contract-'));
  let from = 0;
  for (const header of kept) {
    const at = input.findIndex((h, i) => i >= from && sameHeader(h, header));
    if (at < 0) {
      const wasNull = header.key === 'contract-null' && header.value !== null;
      return fail(check, wasNull ? 'a null header value was written as a value' : `header "${header.key}" moved or changed`);
    }
    from = at + 1;
  }
  return pass(check);
}

function tombstones(chain: TransformChain, base: MirrorRecord, kept: boolean): ContractCheck {
  const check = 'tombstones: null key and value stay null';
  const record = { ...base, key: null, value: null };
  const failures: Parameters<TransformChain>[1] = [];
  const out = chain([record], failures);
  if (failures.length > 0) {
    const { error } = failures[0]!;
    const cause: unknown = error.cause;
    if (cause instanceof Error && cause.name !== 'PluginError') return fail(check, `crashed on a tombstone with ${cause.name} (refuse it with a PluginError)`);
    return pass(check);
  }
  if (out.length === 0) return pass(check);
  const written = out[0]!;
  if (kept && written.value !== null) return fail(check, 'a tombstone (null value) was written with a value');
  if (written.key !== null && written.key.length === 0) return fail(check, 'a null key became an empty one');
  return pass(check);
}

/**
 * With a failing sample, the plugin's own failure is routed; without one, a throw is put around
 * the plugin (on a record marked by a header), which still shows the failure is the plugin's,
 * named as such — a field-level transform cannot be wrapped so, and is skipped.
 */
function errorRouting(
  definition: TransformDefinition,
  registry: PluginRegistry,
  options: Readonly<Record<string, unknown>>,
  pluginChain: TransformChain,
  base: MirrorRecord,
  failing: Partial<MirrorRecord> | undefined,
  converters: FlowConverters,
): ContractCheck[] {
  const plugin = definition.name;
  const none = 'errors: with tolerance none, a failing record ends the flow naming the plugin';
  const all = 'errors: with tolerance all, a failing record goes to the dead letters, the rest is written';
  let chain = pluginChain;
  let bad: MirrorRecord;
  if (failing !== undefined) bad = sampleRecord(failing, 1, converters);
  else {
    const throwing = throwingOn(definition);
    if (throwing === undefined) return [skip(none, 'no failing sample record given'), skip(all, 'no failing sample record given')];
    const context = { flow: { source: 'primary', target: 'backup' }, logger: silentLogger, converters };
    chain = buildTransformChain([{ type: plugin, options, path: STEP }], registry.without(plugin).with(throwing), context);
    bad = { ...base, headers: [...base.headers, { key: THROW_HEADER, value: null }] };
  }
  const at = (offset: number, r: MirrorRecord): MirrorRecord => ({ ...r, source: { ...r.source, offset } });
  const records = [at(0, base), at(1, bad), at(2, base)];
  const stopped = runWithTolerance(chain, records, 'none');
  const ended =
    stopped.failure === undefined
      ? fail(none, 'the failing sample record did not fail')
      : stopped.failure.stage.kind === 'transform' && stopped.failure.stage.plugin === plugin && stopped.failure.message.includes(`"${plugin}"`)
        ? stopped.output.some((r) => r.source.offset > 0)
          ? fail(none, 'records after the failing one were written')
          : pass(none)
        : fail(none, `the failure does not name the plugin: ${stopped.failure.message}`);
  const tolerated = runWithTolerance(chain, records, 'all');
  const routed =
    tolerated.deadLetters.length === 1 && tolerated.deadLetters[0]!.record === records[1] && tolerated.output.some((r) => r.source.offset === 2)
      ? pass(all)
      : fail(all, `${tolerated.deadLetters.length} dead letters; ${tolerated.output.length} records written`);
  return [ended, routed];
}

const THROW_HEADER = 'contract-throw';

/** The plugin, throwing a PluginError on records with the THROW_HEADER; undefined for a field-level one. */
function throwingOn(definition: TransformDefinition): TransformDefinition | undefined {
  if (typeof (definition as { createField?: unknown }).createField === 'function') return undefined;
  return {
    ...definition,
    create(config, context) {
      const transform = definition.create(config, context);
      return {
        apply(record) {
          if (record.headers.some((h) => h.key === THROW_HEADER)) throw new PluginError(definition.name, 'failed on purpose (plugin contract)');
          return transform.apply(record);
        },
      };
    },
  };
}

/** A record with what the sample leaves out filled in, its value in the form the converter reads. */
function sampleRecord(partial: Partial<MirrorRecord>, index: number, converters: FlowConverters): MirrorRecord {
  const data = (side: 'key' | 'value'): Record<string, string | number> =>
    side === 'key' ? { id: index } : { id: index, name: 'ann', email: 'ann@example.com' };
  const encoded = (side: 'key' | 'value'): Buffer => {
    if (converters[side] === 'json') return Buffer.from(JSON.stringify(data(side)));
    if (converters[side] === 'json_envelope') return Buffer.from(JSON.stringify(envelope(data(side))));
    return Buffer.from(`${side}-${index}`);
  };
  return {
    source: { topic: 'orders', partition: 0, offset: index },
    topic: 'primary.orders',
    partition: 0,
    timestamp: 1_700_000_000_000 + index,
    key: encoded('key'),
    value: encoded('value'),
    headers: [{ key: 'trace', value: Buffer.from('t1') }],
    ...partial,
  };
}

function frozenCopy(record: MirrorRecord): MirrorRecord {
  const copy: MirrorRecord = {
    ...record,
    source: Object.freeze({ ...record.source }),
    key: record.key === null ? null : Buffer.from(record.key),
    value: record.value === null ? null : Buffer.from(record.value),
    headers: Object.freeze(record.headers.map((h) => Object.freeze({ key: h.key, value: h.value === null ? null : Buffer.from(h.value) }))) as RecordHeader[],
  };
  return Object.freeze(copy);
}

function snapshot(record: MirrorRecord): unknown {
  const bytes = (b: Buffer | null) => (b === null ? null : b.toString('base64'));
  return { ...record, key: bytes(record.key), value: bytes(record.value), headers: record.headers.map((h) => [h.key, bytes(h.value)]) };
}

function sameHeader(a: RecordHeader, b: RecordHeader): boolean {
  return a.key === b.key && (a.value === null ? b.value === null : b.value !== null && a.value.equals(b.value));
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

const pass = (check: string): ContractCheck => ({ check, result: 'pass' });
const fail = (check: string, detail: string): ContractCheck => ({ check, result: 'fail', detail });
const skip = (check: string, detail: string): ContractCheck => ({ check, result: 'skip', detail });

/** Connect's JsonConverter envelope (schemas.enable=true) of a flat struct: int64 and string fields. */
function envelope(payload: Readonly<Record<string, string | number>>): unknown {
  const fields = Object.entries(payload).map(([field, value]) => ({ field, type: typeof value === 'number' ? 'int64' : 'string', optional: false }));
  return { schema: { type: 'struct', fields, optional: false }, payload };
}
