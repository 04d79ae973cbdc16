/**
 * `mirrorflow schemas copy`: every version of the subjects of a flow's topics copied from the
 * source registry to the target's, in version order, before (or besides) the replication, so
 * the target subject has the source's history: a producer that writes to the target after a
 * failover passes its compatibility checks against v1..vN, and the per-record id translation
 * finds the schemas registered. A subject is a flow's when its TopicNameStrategy topic
 * (`<topic>-key` / `-value`, the sides in `schema_registry.on`) is one the flow replicates; it
 * goes to the subject the translation uses, the topic renamed by the replication policy and the
 * flow's rename steps. References are registered first, by the translation's own code.
 * Registering a schema a subject has returns its id, so a second copy changes nothing.
 *
 * Nothing connects to Kafka. A version the target refuses (incompatible) is reported and the
 * rest go on; a registry that cannot be reached or refuses the credentials ends the copy.
 */
import { asyncScheduler, lastValueFrom } from '#rxjs';
import type { FlowConfig, PipelineConfig } from '../../config';
import { silentLogger } from '../../core/ports/logger';
import { SchemaRegistryRefusal, type SchemaRegistryClient } from '../../core/ports/schema-registry';
import { SchemaIdTranslation } from '../../flow/replication/schema-id-translation';
import { httpSchemaRegistry } from '../../registry/schema-registry-client';
import { topicAfterTransforms } from '../../plugins';
import { DefaultTopicFilter, shouldReplicateTopic } from '../../policy';
import { flowReplicationPolicy } from '../wiring/flow-policy';
import { registrySettings } from '../wiring/settings/registry-settings';
import { ToolUsageError } from './tool-errors';

export interface SchemaCopyRequest {
  /** Only this flow (by name); default every flow with a schema_registry. */
  readonly flow?: string;
  /** List what would be copied, registering nothing. */
  readonly dryRun: boolean;
}

export interface CopiedVersion {
  readonly version: number;
  readonly sourceId: number;
  /** The target's id; absent in a dry run and when refused. */
  readonly targetId?: number;
  /** Why the target refused it (e.g. incompatible with the subject's earlier versions). */
  readonly refused?: string;
}

export interface CopiedSubject {
  readonly subject: string;
  readonly targetSubject: string;
  readonly versions: readonly CopiedVersion[];
}

export interface FlowSchemaCopy {
  readonly flow: string;
  readonly source: string;
  readonly target: string;
  readonly subjects: readonly CopiedSubject[];
}

export interface SchemaCopyResult {
  readonly dryRun: boolean;
  readonly flows: readonly FlowSchemaCopy[];
  /** Versions the target refused, over every flow. */
  readonly refusedCount: number;
}

/** The registries of a flow; a parameter so a test can hand in others. */
export type RegistryFactory = (flow: FlowConfig) => { readonly source: SchemaRegistryClient; readonly target: SchemaRegistryClient };

const httpRegistries: RegistryFactory = (flow) => ({
  source: httpSchemaRegistry(registrySettings(flow.schema_registry!.source)),
  target: httpSchemaRegistry(registrySettings(flow.schema_registry!.target)),
});

export async function copySchemas(config: PipelineConfig, request: SchemaCopyRequest, registries: RegistryFactory = httpRegistries): Promise<SchemaCopyResult> {
  const withRegistry = config.flows.filter((f) => f.schema_registry !== undefined);
  let flows = withRegistry;
  if (request.flow !== undefined) {
    const named = config.flows.find((f) => f.name === request.flow);
    if (named === undefined) throw new ToolUsageError(`the pipeline has no flow "${request.flow}" (it has ${config.flows.map((f) => f.name).join(', ')})`);
    if (named.schema_registry === undefined) throw new ToolUsageError(`flow "${request.flow}" has no schema_registry: there is no registry to copy from`);
    flows = [named];
  }
  if (flows.length === 0) throw new ToolUsageError('no flow of the pipeline has a schema_registry: there is no registry to copy from');
  const copies: FlowSchemaCopy[] = [];
  for (const flow of flows) copies.push(await copyFlow(flow, request.dryRun, registries(flow)));
  const refusedCount = copies.reduce((n, f) => n + f.subjects.reduce((m, s) => m + s.versions.filter((v) => v.refused !== undefined).length, 0), 0);
  return { dryRun: request.dryRun, flows: copies, refusedCount };
}

/** The flow's subjects: source subject → the target subject the id translation uses. */
export function flowSubjects(flow: FlowConfig, subjects: readonly string[]): { subject: string; targetSubject: string }[] {
  const policy = flowReplicationPolicy(flow);
  const filter = new DefaultTopicFilter({ include: flow.topics, exclude: flow.topics_exclude });
  const renamed = topicAfterTransforms(flow.transforms, flow);
  const context = { filter, policy, targetAlias: flow.target, replicateHeartbeats: flow.replicate_heartbeats };
  const out: { subject: string; targetSubject: string }[] = [];
  for (const subject of [...subjects].sort()) {
    for (const side of flow.schema_registry?.on ?? []) {
      const suffix = `-${side}`;
      if (!subject.endsWith(suffix)) continue;
      const topic = subject.slice(0, -suffix.length);
      // Heartbeats are never in a registry's format: the translation passes them.
      if (topic === '' || policy.isHeartbeatsTopic(topic) || !shouldReplicateTopic(topic, context)) continue;
      out.push({ subject, targetSubject: `${renamed(policy.formatRemoteTopic(flow.source, topic))}${suffix}` });
    }
  }
  return out;
}

async function copyFlow(
  flow: FlowConfig,
  dryRun: boolean,
  { source, target }: { source: SchemaRegistryClient; target: SchemaRegistryClient },
): Promise<FlowSchemaCopy> {
  const registry = flow.schema_registry!;
  // The translation's reference handling, without its outage retries: a one-shot copy reports an outage.
  const translation = new SchemaIdTranslation({
    source,
    target,
    sides: registry.on,
    strict: registry.strict,
    path: `flow ${flow.name}`,
    errorTolerance: 'all',
    scheduler: asyncScheduler,
    logger: silentLogger,
  });
  const subjects: CopiedSubject[] = [];
  for (const { subject, targetSubject } of flowSubjects(flow, await source.listSubjects())) {
    const versions: CopiedVersion[] = [];
    for (const version of await source.listVersions(subject)) {
      const schema = await source.subjectVersion(subject, version);
      if (dryRun) {
        versions.push({ version, sourceId: schema.id });
        continue;
      }
      try {
        versions.push({ version, sourceId: schema.id, targetId: await lastValueFrom(translation.register(targetSubject, schema)) });
      } catch (error) {
        if (!(error instanceof SchemaRegistryRefusal)) throw error;
        versions.push({ version, sourceId: schema.id, refused: error.message });
      }
    }
    subjects.push({ subject, targetSubject, versions });
  }
  return { flow: flow.name, source: source.url, target: target.url, subjects };
}
