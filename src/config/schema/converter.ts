/** `flows[].converter`: how field-level transforms read and write the key and the value. */
import { z } from '#zod';
import { CONVERTER_NAMES } from '../../plugins';

const converterName = z.enum(CONVERTER_NAMES).default('bytes');

export const converterSchema = z
  .strictObject({
    key: converterName.describe(
      "How field-level transforms read and write the key: `bytes` (none; they are refused), `string` (UTF-8 text), `json` (JSON; Connect's JsonConverter with `schemas.enable=false`), `json_envelope` (Connect's JsonConverter with `schemas.enable=true`, its default: the `{schema, payload}` envelope, read as typed data and written back with the schema the transforms leave), `avro` (Confluent's AvroConverter: the wire format with a schema id and Avro binary, read with its writer schema from `schema_registry.source` and written back with the Avro schema of what the transforms leave, registered in `schema_registry.target`; needs `schema_registry` with the side in its `on`), `json_schema` (Confluent's JsonSchemaConverter: the wire format with a schema id and JSON text, read with its JSON Schema from `schema_registry.source` and written back with the JSON Schema of what the transforms leave, registered in `schema_registry.target`; needs `schema_registry` as `avro` does), `protobuf` (Confluent's ProtobufConverter: likewise with message indexes and Protobuf binary, written back as the proto3 message of what the transforms leave). MM2: `key.converter` (ByteArrayConverter).",
    ),
    value: converterName.describe('How field-level transforms read and write the value; as `key`. MM2: `value.converter` (ByteArrayConverter).'),
  })
  .describe(
    'How field-level transforms (insert_field, replace_field, cast, mask_field, hoist_field, extract_field) see the key and the value. A side is read only when such a step works on it, once, and written back once; other records and sides keep their bytes.',
  );
