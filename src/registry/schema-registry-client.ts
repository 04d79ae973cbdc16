/**
 * The SchemaRegistryClient port over HTTP: the calls of Confluent's Schema Registry REST API
 * that moving schema ids needs (`GET /schemas/ids/{id}`, `GET /subjects/{subject}/versions/{n}`,
 * `POST /subjects/{subject}/versions`, `POST /subjects/{subject}`) and copying subjects
 * (`GET /subjects`, `GET /subjects/{subject}/versions`), on Node's `fetch`. No npm
 * client: Confluent's (`@confluentinc/schemaregistry`, which the tests use to serialize as users'
 * services do) brings the AWS, Azure and Google KMS SDKs and a Vault client with it, for field
 * encryption this never does. Each call tries once; the flow retries outages itself, with
 * backoff and a warning. Credentials go in the Authorization header only: a failure is described
 * by the registry's address, status and Confluent's error code, or by the connection error's code.
 */
import { describeEndpoint } from '../core/describe-endpoint';
import {
  SchemaRegistryError,
  SchemaRegistryRefusal,
  SchemaRegistryUnavailableError,
  type RegisteredSchema,
  type SchemaReference,
  type SchemaRegistryClient,
} from '../core/ports/schema-registry';

export interface SchemaRegistrySettings {
  /** The base of the Confluent-compatible API (Apicurio: `…/apis/ccompat/v7`). */
  readonly url: string;
  readonly basicAuth?: { readonly username: string; readonly password: string };
  readonly bearerToken?: string;
  /** Per request. */
  readonly timeoutMs: number;
}

const CONTENT_TYPE = 'application/vnd.schemaregistry.v1+json';
/** Confluent's error codes of a 404 about the registry's content: subject, version, schema not found. */
const NOT_FOUND_CODES = new Set([40401, 40402, 40403]);
/** Of the registry's own message, at most this much goes into an error (it names schemas, never records). */
const MAX_MESSAGE_CHARS = 300;

export function httpSchemaRegistry(settings: SchemaRegistrySettings): SchemaRegistryClient {
  const base = settings.url.replace(/\/+$/, '');
  const where = describeEndpoint(base);
  const headers: Record<string, string> = { Accept: `${CONTENT_TYPE}, application/json` };
  if (settings.basicAuth !== undefined) {
    const { username, password } = settings.basicAuth;
    headers['Authorization'] = `Basic ${Buffer.from(`${username}:${password}`, 'utf8').toString('base64')}`;
  } else if (settings.bearerToken !== undefined) headers['Authorization'] = `Bearer ${settings.bearerToken}`;

  const call = async (what: string, path: string, body?: RegisteredSchema): Promise<Record<string, unknown>> => {
    const json = await callJson(what, path, body);
    if (typeof json !== 'object' || json === null || Array.isArray(json))
      throw new SchemaRegistryError(`${what}: the answer of ${where} is not a JSON object; is it the base URL of a Confluent-compatible Schema Registry API?`);
    return json as Record<string, unknown>;
  };

  const callJson = async (what: string, path: string, body?: RegisteredSchema): Promise<unknown> => {
    let response: Response;
    try {
      response = await fetch(`${base}${path}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers: body === undefined ? headers : { ...headers, 'Content-Type': CONTENT_TYPE },
        ...(body === undefined ? {} : { body: JSON.stringify(requestBody(body)) }),
        signal: AbortSignal.timeout(settings.timeoutMs),
      });
    } catch (error) {
      throw new SchemaRegistryUnavailableError(`${what}: the Schema Registry at ${where} cannot be reached (${networkReason(error)})`);
    }
    const text = await response.text().catch(() => '');
    const json = parseJson(text);
    if (response.ok) {
      if (json === undefined)
        throw new SchemaRegistryError(`${what}: the answer of ${where} is not JSON; is it the base URL of a Confluent-compatible Schema Registry API?`);
      return json;
    }
    const error = typeof json === 'object' && json !== null && !Array.isArray(json) ? (json as Record<string, unknown>) : undefined;
    const errorCode = typeof error?.['error_code'] === 'number' ? error['error_code'] : undefined;
    const said = typeof error?.['message'] === 'string' ? `: ${error['message'].slice(0, MAX_MESSAGE_CHARS)}` : '';
    const answered = `${what}: the Schema Registry at ${where} answered ${response.status}${errorCode === undefined ? '' : ` (error code ${errorCode})`}`;
    if (response.status === 401 || response.status === 403) throw new SchemaRegistryError(`${answered}; check its credentials`);
    if (response.status === 408 || response.status === 429 || response.status >= 500) throw new SchemaRegistryUnavailableError(`${answered}${said}`);
    // Not found, but no subject, version or schema was missing: the path is not the API's (a wrong base URL).
    const notTheApi = errorCode === undefined || (response.status === 404 && !NOT_FOUND_CODES.has(errorCode));
    if (notTheApi) throw new SchemaRegistryError(`${answered}, not about a subject or schema; is it the base URL of a Confluent-compatible API?`);
    throw new SchemaRegistryRefusal(`${answered}${said}`, response.status, errorCode);
  };

  const subjectPath = (subject: string): string => `/subjects/${encodeURIComponent(subject)}`;
  return {
    url: where,
    async schemaById(id) {
      return schemaOf(await call(`reading schema id ${id}`, `/schemas/ids/${id}`), where);
    },
    async schemaByVersion(subject, version) {
      return schemaOf(await call(`reading version ${version} of subject "${subject}"`, `${subjectPath(subject)}/versions/${version}`), where);
    },
    async register(subject, schema) {
      const answer = await call(`registering a schema under subject "${subject}"`, `${subjectPath(subject)}/versions`, schema);
      return integerField(answer, 'id', where);
    },
    async versionOf(subject, schema) {
      const answer = await call(`looking up a schema under subject "${subject}"`, subjectPath(subject), schema);
      return integerField(answer, 'version', where);
    },
    async listSubjects() {
      const answer = await callJson('listing the subjects', '/subjects');
      if (!Array.isArray(answer) || !answer.every((s) => typeof s === 'string'))
        throw new SchemaRegistryError(`the answer of ${where} to listing the subjects is not a list of names`);
      return answer as string[];
    },
    async listVersions(subject) {
      const answer = await callJson(`listing the versions of subject "${subject}"`, `${subjectPath(subject)}/versions`);
      if (!Array.isArray(answer) || !answer.every((v) => typeof v === 'number' && Number.isInteger(v)))
        throw new SchemaRegistryError(`the answer of ${where} to listing the versions of subject "${subject}" is not a list of version numbers`);
      return (answer as number[]).sort((a, b) => a - b);
    },
    async subjectVersion(subject, version) {
      const answer = await call(`reading version ${version} of subject "${subject}"`, `${subjectPath(subject)}/versions/${version}`);
      return { ...schemaOf(answer, where), id: integerField(answer, 'id', where), version };
    },
  };
}

function requestBody(schema: RegisteredSchema): Record<string, unknown> {
  return {
    schema: schema.schema,
    // Confluent's registry takes AVRO for a missing type; some others refuse the field for it.
    ...(schema.schemaType === 'AVRO' ? {} : { schemaType: schema.schemaType }),
    ...(schema.references.length === 0 ? {} : { references: schema.references }),
  };
}

function schemaOf(answer: Record<string, unknown>, where: string): RegisteredSchema {
  const schema = answer['schema'];
  if (typeof schema !== 'string') throw new SchemaRegistryError(`the answer of ${where} has no schema; is it a Confluent-compatible Schema Registry API?`);
  const type = answer['schemaType'];
  const references: SchemaReference[] = [];
  for (const r of Array.isArray(answer['references']) ? (answer['references'] as unknown[]) : []) {
    const { name, subject, version } = (r ?? {}) as Record<string, unknown>;
    if (typeof name !== 'string' || typeof subject !== 'string' || typeof version !== 'number')
      throw new SchemaRegistryError(`the answer of ${where} has a schema reference without name, subject and version`);
    references.push({ name, subject, version });
  }
  return { schema, schemaType: typeof type === 'string' && type !== '' ? type : 'AVRO', references };
}

function integerField(answer: Record<string, unknown>, field: string, where: string): number {
  const value = answer[field];
  if (typeof value !== 'number' || !Number.isInteger(value)) throw new SchemaRegistryError(`the answer of ${where} has no ${field}`);
  return value;
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function networkReason(error: unknown): string {
  if ((error as { name?: unknown } | undefined)?.name === 'TimeoutError') return 'no answer in time';
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? cause.code : 'connection failed';
}
