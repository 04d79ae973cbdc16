/**
 * Makes a flow's registry converter by name, loading its module, and with it the codec library
 * it runs on (avsc; @bufbuild/protobuf and protobufjs, ~120 modules), only then: a run whose flows
 * use none of them never loads them (a `require` here, not an import, for that reason).
 */
/* eslint-disable @typescript-eslint/no-require-imports */
import type { RegistryConverterName } from './converters';
import type { RegistryConverter } from './registry-converter';

export function makeRegistryConverter(name: RegistryConverterName): RegistryConverter {
  switch (name) {
    case 'avro':
      return new (require('./avro-converter') as typeof import('./avro-converter')).AvroConverter();
    case 'json_schema':
      return new (require('./json-schema-converter') as typeof import('./json-schema-converter')).JsonSchemaConverter();
    case 'protobuf':
      return new (require('./protobuf-converter') as typeof import('./protobuf-converter')).ProtobufConverter();
  }
}
