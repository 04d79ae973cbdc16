/**
 * Two Schema Registries of a describe block's own, a source and a target (Apicurio, see
 * schema-registry.ts): started before its tests, stopped after them. Called inside `describe`.
 */
import { after, before } from 'node:test';
import { startSchemaRegistry, type SchemaRegistry } from './schema-registry';

export interface SchemaRegistries {
  readonly source: SchemaRegistry;
  readonly target: SchemaRegistry;
}

export function useSchemaRegistries(): SchemaRegistries {
  let started: SchemaRegistries | undefined;
  before(async () => {
    const [source, target] = await Promise.all([startSchemaRegistry(), startSchemaRegistry()]);
    started = { source, target };
  });
  after(async () => {
    await Promise.all([started?.source.stop(), started?.target.stop()]);
  });
  const get = (): SchemaRegistries => {
    if (started === undefined) throw new Error('The schema registries are started in the before hook: use them inside a test.');
    return started;
  };
  return {
    get source() {
      return get().source;
    },
    get target() {
      return get().target;
    },
  };
}
