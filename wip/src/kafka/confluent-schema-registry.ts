/**
 * The SchemaRegistryClient port on Confluent's own npm client (`@confluentinc/schemaregistry`,
 * its REST client only: the serdes and their KMS drivers are not loaded). It keeps schemas by id
 * and registrations by subject in its own caches. Credentials go in its auth settings, never in
 * the URL or in an error: a failure is described by status and Confluent's error code, or by the
 * connection error's code.
 */
import { SchemaRegistryClient as ConfluentClient } from '@confluentinc/schemaregistry/dist/schemaregistry-client';
import { RestError } from '@confluentinc/schemaregistry/dist/rest-error';
import { SchemaRegistryRefusal, SchemaRegistryUnavailableError, type RegisteredSchema, type SchemaRegistryClient } from '../core/ports/schema-registry';

export interface SchemaRegistrySettings {
  readonly url: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  readonly bearerToken?: string;
  /** Per request. */
  readonly timeoutMs: number;
}

export function confluentSchemaRegistry(settings: SchemaRegistrySettings): SchemaRegistryClient {
  const client = new ConfluentClient({
    baseURLs: [settings.url],
    createAxiosDefaults: { timeout: settings.timeoutMs },
    // The flow retries outages itself, with backoff and a warning; the client tries once.
    maxRetries: 0,
    ...(settings.basicAuth !== undefined && {
      basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: `${settings.basicAuth.username}:${settings.basicAuth.password}` },
    }),
    ...(settings.bearerToken !== undefined && { bearerAuthCredentials: { credentialsSource: 'STATIC_TOKEN', token: settings.bearerToken } }),
  });
  const describe = (what: string, error: unknown): Error => {
    if (error instanceof RestError) {
      const message = `${what}: the registry at ${settings.url} answered ${error.status} (error code ${error.errorCode})`;
      return error.status >= 400 && error.status < 500 && error.status !== 401 && error.status !== 403 && error.status !== 408 && error.status !== 429
        ? new SchemaRegistryRefusal(message, error.status, error.errorCode)
        : new SchemaRegistryUnavailableError(message);
    }
    const code = (error as { code?: unknown }).code;
    return new SchemaRegistryUnavailableError(`${what}: the registry at ${settings.url} could not be reached (${typeof code === 'string' ? code : 'no answer'})`);
  };
  return {
    url: settings.url,
    async schemaById(id) {
      try {
        const info = await client.getBySubjectAndId('', id);
        return { schema: info.schema, schemaType: info.schemaType ?? 'AVRO', references: (info.references ?? []).map((r) => ({ ...r })) };
      } catch (error) {
        throw describe(`schema id ${id}`, error);
      }
    },
    async register(subject: string, schema: RegisteredSchema) {
      try {
        return await client.register(subject, {
          schema: schema.schema,
          schemaType: schema.schemaType,
          ...(schema.references.length > 0 && { references: schema.references.map((r) => ({ ...r })) }),
        });
      } catch (error) {
        throw describe(`registering under subject "${subject}"`, error);
      }
    },
  };
}
