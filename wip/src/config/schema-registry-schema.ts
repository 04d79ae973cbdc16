/** `flows[].schema_registry`: records in Confluent's wire format whose schema ids move to the target's registry. */
import { z } from 'zod';

const registrySchema = (which: string) =>
  z
    .strictObject({
      url: z
        .string()
        .regex(/^https?:\/\/[^\s/]+/i, 'must be an http:// or https:// URL')
        .describe(`Base URL of the ${which} Schema Registry's Confluent-compatible API, e.g. \`http://registry:8081\` (Apicurio: \`…/apis/ccompat/v7\`).`),
      basic_auth: z
        .strictObject({
          username: z.string().min(1).describe('User (Confluent Cloud: the API key).'),
          password: z.string().min(1).describe('Password (Confluent Cloud: the API secret); never logged.'),
        })
        .optional()
        .describe('HTTP basic authentication. MM2/Connect: `schema.registry.basic.auth.user.info`.'),
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
    ids: z
      .enum(['translate'])
      .default('translate')
      .describe(
        "`translate`: each record's schema id (Confluent's wire format: magic byte 0, 4-byte id) is replaced by the target registry's id of the same schema under the target topic's subject (`<target topic>-key` / `-value`, TopicNameStrategy), registering it there when missing; the payload is never decoded. Records that are not in the wire format, or whose id the source registry does not know, fail as a transform does (`errors.tolerance`); an unreachable registry is retried as an outage.",
      ),
    on: z
      .array(z.enum(['key', 'value']))
      .min(1)
      .default(() => ['value' as const])
      .describe('The sides in the wire format; a null key or value passes as it is.'),
  })
  .describe(
    "Records written with Confluent's Schema Registry serializers (Avro, JSON Schema, Protobuf) whose target consumers read with another registry: their schema ids are moved to that registry's. Turns off whole-batch forwarding for the flow. A mirrorflow extension (MM2 copies ids as they are).",
  );

export type SchemaRegistryConfig = z.output<typeof schemaRegistrySchema>;
