/**
 * The transform definitions a pipeline may name in `type:`: built-ins plus loaded plugins.
 */
import { PluginError } from '../core/errors';
import type { TransformDefinition } from './api';
import { checkTransformDefinition } from './check-transform-definition';

export class PluginRegistry {
  private readonly byName = new Map<string, TransformDefinition>();

  constructor(definitions: Iterable<TransformDefinition> = []) {
    for (const definition of definitions) this.register(definition);
  }

  /**
   * Adds a definition. A second definition with a taken name is an error rather than an
   * override: a custom plugin silently replacing a built-in would change what every pipeline
   * using that `type:` does.
   */
  register(definition: TransformDefinition): this {
    const problems = checkTransformDefinition(definition);
    if (problems.length > 0) {
      throw new PluginError(nameOf(definition), `is not a valid transform definition: ${problems.join('; ')}.`);
    }
    if (this.byName.has(definition.name)) {
      throw new PluginError(definition.name, 'is defined twice; transform names must be unique.');
    }
    this.byName.set(definition.name, definition);
    return this;
  }

  get(name: string): TransformDefinition | undefined {
    return this.byName.get(name);
  }

  has(name: string): boolean {
    return this.byName.has(name);
  }

  /** Registered names, sorted, for messages. */
  names(): string[] {
    return [...this.byName.keys()].sort();
  }

  /** Registered definitions, sorted by name. */
  definitions(): TransformDefinition[] {
    return this.names().map((name) => this.byName.get(name)!);
  }

  /** A new registry with these definitions added; this one is unchanged. */
  with(...definitions: TransformDefinition[]): PluginRegistry {
    return new PluginRegistry([...this.byName.values(), ...definitions]);
  }

  /** A new registry without these names; this one is unchanged. Unknown names are an error (a typo in a test). */
  without(...names: string[]): PluginRegistry {
    for (const name of names) {
      if (!this.byName.has(name)) throw new PluginError(name, 'cannot be removed: it is not registered.');
    }
    const drop = new Set(names);
    return new PluginRegistry([...this.byName.values()].filter((d) => !drop.has(d.name)));
  }
}

/** A name for messages about a definition that may be malformed (registered from plain JS). */
function nameOf(value: unknown): string {
  const name: unknown = typeof value === 'object' && value !== null ? (value as { name?: unknown }).name : undefined;
  return typeof name === 'string' && name !== '' ? name : '(unnamed)';
}
