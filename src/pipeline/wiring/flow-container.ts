import 'reflect-metadata';
import { Container } from 'inversify';
import type { FlowConfig, PipelineConfig } from '../../config';
import { KafkaClients } from '../../core/ports/kafka-clients';
import { Logger } from '../../core/ports/logger';
import { Scheduler } from '../../core/ports/scheduler';
import { PluginRegistry } from '../../plugins';
import { flowModules } from './flow.module';
import { PipelineConfigToken } from './tokens';

/** What the pipeline's container holds for every flow. */
export interface PipelineParts {
  readonly logger: Logger;
  readonly clients: KafkaClients;
  readonly scheduler: Scheduler;
  readonly registry: PluginRegistry;
}

/** The pipeline's container: its config and what every flow shares. Constants, so singletons by nature. */
export function pipelineContainer(config: PipelineConfig, parts: PipelineParts): Container {
  const container = new Container();
  container.bind<PipelineConfig>(PipelineConfigToken).toConstantValue(config);
  container.bind<Logger>(Logger).toConstantValue(parts.logger);
  container.bind<KafkaClients>(KafkaClients).toConstantValue(parts.clients);
  container.bind<Scheduler>(Scheduler).toConstantValue(parts.scheduler);
  container.bind(PluginRegistry).toConstantValue(parts.registry);
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
