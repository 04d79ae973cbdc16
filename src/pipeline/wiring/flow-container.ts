import 'reflect-metadata';
import { type Bind, Container } from '#inversify';
import { KafkaClients } from '../../core/ports/kafka-clients';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { PluginRegistry, TransformChain } from '../../plugins';
import { DiamondWindows } from '../../flow/replication/diamond-window';
import { flowModules } from './flow.module';
import { bindConstant } from './bind-parts';
import { PipelineConfig, type FlowConfig } from './tokens';

/** What the pipeline's container holds for every flow. */
export interface PipelineParts {
  readonly logger: Logger;
  readonly clients: KafkaClients;
  readonly scheduler: Scheduler;
  readonly registry: PluginRegistry;
}

/** The pipeline's container: its config and what every flow shares. Constants, so singletons by nature (kept across reloads). */
export function pipelineContainer(config: PipelineConfig, parts: PipelineParts): Container {
  const container = new Container();
  const bind: Bind = (id) => container.bind(id);
  bindConstant(bind, PipelineConfig, config);
  bindConstant(bind, Logger, parts.logger);
  bindConstant(bind, KafkaClients, parts.clients);
  bindConstant(bind, Scheduler, parts.scheduler);
  bindConstant(bind, PluginRegistry, parts.registry);
  // What the flows with provenance headers delivered into each cluster: shared, so diamonds are written once.
  bindConstant(bind, DiamondWindows, new DiamondWindows());
  return container;
}

/**
 * One flow's child container: binds the flow's config and what derives from it; the pipeline's
 * parts come from the parent. Tests rebind a port here to run the real graph against a fake.
 */
export function flowContainer(pipeline: Container, flow: FlowConfig, pipelineLogger: Logger): Container {
  const container = new Container({ parent: pipeline });
  container.load(...flowModules(flow, pipelineLogger));
  return container;
}

/**
 * Builds a flow's transforms in a container of its own, then drops it: a changed pipeline file
 * whose transforms cannot be built (a plugin that fails) is refused before any flow stops. No
 * client is made.
 */
export function checkTransforms(pipeline: Container, flow: FlowConfig, pipelineLogger: Logger): void {
  if (!flow.enabled) return;
  const check = flowContainer(pipeline, flow, pipelineLogger);
  try {
    check.get(TransformChain);
  } finally {
    check.unbindAll();
  }
}
