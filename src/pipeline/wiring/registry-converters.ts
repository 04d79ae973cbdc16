/**
 * A flow's registry-backed converters (`avro`, `json_schema`, `protobuf`): one instance per
 * converter its sides name, so both sides of an `avro` flow share the writer schemas read and the
 * local ids written.
 */
import { token } from '../../core/ports/token';
import {
  isRegistryConverterName,
  makeRegistryConverter,
  type FlowConverters,
  type RegistryConverter,
  type RegistryConverterName,
  type RegistryConverters,
} from '../../plugins';

/** DI token of the flow's RegistryConverters, bound only when a side has one and the flow has a schema_registry. */
export const FlowRegistryConverters = token<RegistryConverters>('FlowRegistryConverters');

/** The converters of the sides that name a registry converter; undefined when none does. */
export function registryConverters(names: Pick<FlowConverters, 'key' | 'value'>): RegistryConverters | undefined {
  const made = new Map<RegistryConverterName, RegistryConverter>();
  const of = (name: string): RegistryConverter | undefined => {
    if (!isRegistryConverterName(name)) return undefined;
    let converter = made.get(name);
    if (converter === undefined) made.set(name, (converter = makeRegistryConverter(name)));
    return converter;
  };
  const key = of(names.key);
  const value = of(names.value);
  if (key === undefined && value === undefined) return undefined;
  return { ...(key === undefined ? {} : { key }), ...(value === undefined ? {} : { value }) };
}
