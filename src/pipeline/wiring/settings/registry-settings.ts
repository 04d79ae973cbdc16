import type { FlowConfig } from '../../../config';
import type { SchemaIdTranslationOptions } from '../../../flow/replication/schema-id-translation';
import type { SchemaRegistryConfig } from '../../../config/schema/schema-registry';
import type { SchemaRegistrySettings } from '../../../registry/schema-registry-client';

/** The HTTP client's settings of a flow's `schema_registry.source` or `.target`. */
export function registrySettings(registry: SchemaRegistryConfig['source']): SchemaRegistrySettings {
  return {
    url: registry.url,
    timeoutMs: registry.timeout_ms,
    ...(registry.basic_auth === undefined ? {} : { basicAuth: registry.basic_auth }),
    ...(registry.bearer_token === undefined ? {} : { bearerToken: registry.bearer_token }),
  };
}

/** What `schema_registry` asks of the schema-id translation: which sides, how strict, what a failure is. */
export function schemaIdTranslationSettings(
  flow: Pick<FlowConfig, 'name' | 'errors'>,
  registries: SchemaRegistryConfig,
): Pick<SchemaIdTranslationOptions, 'sides' | 'strict' | 'path' | 'errorTolerance'> {
  return { sides: registries.on, strict: registries.strict, path: `flow ${flow.name}`, errorTolerance: flow.errors.tolerance };
}
