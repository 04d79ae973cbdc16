import type { Bind, Container, MapToResolvedValueInjectOptions, ServiceIdentifier } from '#inversify';
import type { Token } from '../../core/ports/token';

/** A class bound to itself (`bind(TopicSync).toSelf()`). */
type Class<T> = abstract new (...args: never[]) => T;

/** What a binding's part is resolved from: a typed token, or a class bound to itself. */
export type Source<T> = Token<T> | Class<T>;

/** A source that is bound only when its feature is on; the part is then undefined. */
export interface Optional<T> {
  readonly optional: Source<T>;
}

/** Marks a part whose binding only some flows have (offset syncs, dead letters, …). */
export function optional<T>(source: Source<T>): Optional<T> {
  return { optional: source };
}

/** The parts a binding names, each by its source. */
export type Sources = Readonly<Record<string, Source<unknown> | Optional<unknown>>>;

/** What a source resolves to. */
export type Resolved<S> = S extends Optional<infer T> ? T | undefined : S extends Source<infer T> ? T : never;

/** The parts `make` gets: each named part as its source's type. */
export type Parts<S extends Sources> = { readonly [K in keyof S]: Resolved<S[K]> };

function isOptional(source: Source<unknown> | Optional<unknown>): source is Optional<unknown> {
  return typeof source === 'object' && source !== null && 'optional' in source;
}

/**
 * Binds `target`, a singleton of the container, to what `make` builds from the parts that
 * `sources` names, each resolved from its token when the binding is first asked for. Parts go by
 * name, not by position, and the compiler checks each token's type against what `make` does with
 * it: a token of another type is an error, and two parts of one type (writers of several roles)
 * cannot be swapped unseen, as each is named where it is used. `make` translates nothing from the
 * config itself; the settings functions of ./settings do.
 */
export function bindParts<T, const S extends Sources>(bind: Bind, target: Source<T>, sources: S, make: (parts: Parts<S>) => NoInfer<T>): void {
  const names = Object.keys(sources);
  // inversify types these by position; the names and their types were checked above.
  const inject = names.map((name) => {
    const source = sources[name]!;
    return isOptional(source) ? { serviceIdentifier: source.optional, optional: true } : source;
  }) as unknown as MapToResolvedValueInjectOptions<unknown[]>;
  bind<T>(target as ServiceIdentifier<T>)
    .toResolvedValue((...values: unknown[]) => make(Object.fromEntries(names.map((name, i) => [name, values[i]])) as Parts<S>), inject)
    .inSingletonScope();
}

/** Binds `target` to `value`, checked against the token's type (a constant is a singleton by nature). */
export function bindConstant<T>(bind: Bind, target: Source<T>, value: NoInfer<T>): void {
  bind<T>(target as ServiceIdentifier<T>).toConstantValue(value);
}

/** What `target` is bound to in `container`, as its token's type: for the composition, when a flow is built. */
export function resolve<T>(container: Pick<Container, 'get'>, target: Source<T>): T {
  return container.get<T>(target as ServiceIdentifier<T>);
}
