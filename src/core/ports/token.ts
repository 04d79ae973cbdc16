declare const boundTo: unique symbol;

/**
 * A DI token that says what is bound to it. At run time it is the symbol
 * `Symbol.for('mirrorflow.<name>')`; to the compiler it also carries the type, so the wiring's
 * helper (src/pipeline/wiring/bind-parts.ts) checks a binding's parts against their tokens.
 */
export type Token<T> = symbol & { readonly [boundTo]?: T };

/** The token `mirrorflow.<name>`, bound to a `T`. */
export function token<T>(name: string): Token<T> {
  return Symbol.for(`mirrorflow.${name}`) as Token<T>;
}
