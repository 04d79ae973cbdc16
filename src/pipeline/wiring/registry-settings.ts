import type { SchemaRegistryConfig } from '../../config/schema/schema-registry';
import type { SchemaRegistrySettings } from '../../registry/schema-registry-client';

/** The HTTP client's settings of a flow's `schema_registry.source` or `.target`. */
export function registrySettings(registry: SchemaRegistryConfig['source']): SchemaRegistrySettings {
  return {
    url: registry.url,
    timeoutMs: registry.timeout_ms,
    ...(registry.basic_auth === undefined ? {} : { basicAuth: registry.basic_auth }),
    ...(registry.bearer_token === undefined ? {} : { bearerToken: registry.bearer_token }),
  };
}
