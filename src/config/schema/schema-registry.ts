/** `flows[].schema_registry`: records in Confluent's wire format whose schema ids move to the target's registry. */
import { z } from '#zod';

const registrySchema = (which: string) =>
  z
    .strictObject({
      url: z
        .string()
        .regex(/^https?:\/\/[^\s/@]+(\/\S*)?$/i, 'must be an http:// or https:// URL without user info (credentials go in basic_auth)')
        .describe(
          `Base URL of the ${which} Schema Registry's Confluent-compatible REST API, e.g. \`http://registry:8081\` (Confluent), \`http://apicurio:8080/apis/ccompat/v7\` (Apicurio). HTTPS servers are checked against Node's CAs (add yours with \`NODE_EXTRA_CA_CERTS\`).`,
        ),
      basic_auth: z
        .strictObject({
          username: z.string().min(1).describe('User (Confluent Cloud: the API key).'),
          password: z.string().min(1).describe('Password (Confluent Cloud: the API secret); never logged.'),
        })
        .optional()
        .describe("HTTP basic authentication. Confluent's serializers: `basic.auth.user.info`."),
      bearer_token: z.string().min(1).optional().describe('A static bearer token; never logged.'),
      timeout_ms: z.number().int().positive().default(10_000).describe('Deadline of one request; a request past it is retried as an outage.'),
    })
    .refine((registry) => !(registry.basic_auth !== undefined && registry.bearer_token !== undefined), {
      message: 'basic_auth and bearer_token exclude each other',
    })
    .describe(`The ${which} Schema Registry.`);

export const schemaRegistrySchema = z
  .strictObject({
    source: registrySchema('source'),
    target: registrySchema('target'),
    subjects: z
      .enum(['topic_name'])
      .default('topic_name')
      .describe(
        "The subject a record's schema is registered under in the target registry. `topic_name` (Confluent's TopicNameStrategy, its serializers' default): `<target topic>-key` / `<target topic>-value`, the target topic as the replication policy and the transforms name it. Schemas a schema refers to are registered first, each under its own subject name.",
      ),
    on: z
      .array(z.enum(['key', 'value']))
      .min(1)
      .default(() => ['value' as const])
      .describe(
        'The sides written with a Schema Registry serializer. A null side (a tombstone, a record without key) passes as it is; so does one not in the wire format, unless `strict`.',
      ),
    strict: z
      .boolean()
      .default(false)
      .describe(
        "A key or value of a side in `on` that is not in Confluent's wire format (magic byte 0 and a 4-byte schema id) fails the record as a transform does (`errors.tolerance`). Off: it is copied unchanged.",
      ),
  })
  .describe(
    "Records written by Confluent Schema Registry serializers (Avro, JSON Schema, Protobuf), read on the target through another registry: each record's schema id (the 4 bytes after the magic byte) is replaced by the target registry's id of the same schema, registering it there when missing; the payload is never decoded. An id the source registry does not know, or a schema the target registry refuses (incompatible), fails the record (`errors.tolerance`); an unreachable registry is retried as an outage. Turns off whole-batch forwarding for the flow. A mirrorflow extension: MM2 copies the bytes with the source's ids; from mm2.properties it comes only with an AvroConverter, JsonSchemaConverter or ProtobufConverter (`value.converter.schema.registry.url`), as the `avro`, `json_schema` and `protobuf` converters need it.",
  );

export type SchemaRegistryConfig = z.output<typeof schemaRegistrySchema>;
