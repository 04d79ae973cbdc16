/**
 * Kafka's `sasl.jaas.config` value, as `org.apache.kafka.common.security.JaasConfig` reads it:
 *   <LoginModuleClass> <required|requisite|sufficient|optional> key=value ... ;
 * Values are words or quoted strings ("…" or '…', backslash escapes). Clients take exactly one
 * login module. Errors never quote the text: it holds a password.
 */

export interface JaasLoginModule {
  readonly loginModule: string;
  readonly controlFlag: string;
  readonly options: ReadonlyMap<string, string>;
}

export type JaasResult = { readonly module: JaasLoginModule } | { readonly error: string };

const CONTROL_FLAGS = ['required', 'requisite', 'sufficient', 'optional'];
/** Letters, digits and `-_$.`, plus characters outside ASCII (placeholders for `${…}` references). */
const WORD = /[A-Za-z0-9_$.\-\u0080-\uffff]/;

export function parseJaasConfig(text: string): JaasResult {
  const tokens = tokenize(text);
  if ('error' in tokens) return tokens;
  const modules: JaasLoginModule[] = [];
  let i = 0;
  const list = tokens.tokens;
  while (i < list.length) {
    const name = list[i++];
    if (name?.kind !== 'word') return { error: 'expected the name of a login module class' };
    const flag = list[i++];
    if (flag?.kind !== 'word' || !CONTROL_FLAGS.includes(flag.text.toLowerCase())) {
      return { error: 'expected a control flag (required, requisite, sufficient or optional) after the login module' };
    }
    const options = new Map<string, string>();
    for (;;) {
      const next = list[i++];
      if (next === undefined) return { error: 'the login module entry must end with ";"' };
      if (next.kind === 'punct' && next.text === ';') break;
      if (next.kind !== 'word') return { error: 'expected an option name' };
      const equals = list[i++];
      if (equals?.kind !== 'punct' || equals.text !== '=') return { error: `expected "=" after option ${next.text}` };
      const value = list[i++];
      if (value === undefined || value.kind === 'punct') return { error: `option ${next.text} has no value` };
      options.set(next.text, value.text);
    }
    modules.push({ loginModule: name.text, controlFlag: flag.text.toLowerCase(), options });
  }
  if (modules.length !== 1) return { error: `it must hold exactly one login module, not ${modules.length}` };
  return { module: modules[0]! };
}

type Token = { readonly kind: 'word' | 'quoted' | 'punct'; readonly text: string };

function tokenize(text: string): { tokens: Token[] } | { error: string } {
  const tokens: Token[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (/\s/.test(c)) {
      i += 1;
    } else if (text.startsWith('//', i)) {
      const end = text.indexOf('\n', i);
      i = end < 0 ? text.length : end + 1;
    } else if (text.startsWith('/*', i)) {
      const end = text.indexOf('*/', i + 2);
      if (end < 0) return { error: 'a comment is not closed' };
      i = end + 2;
    } else if (c === '"' || c === "'") {
      let value = '';
      let j = i + 1;
      for (; j < text.length && text[j] !== c; j++) {
        if (text[j] === '\\' && j + 1 < text.length) j += 1;
        value += text[j];
      }
      if (j >= text.length) return { error: 'a quoted value is not closed' };
      tokens.push({ kind: 'quoted', text: value });
      i = j + 1;
    } else if (c === '=' || c === ';') {
      tokens.push({ kind: 'punct', text: c });
      i += 1;
    } else if (WORD.test(c)) {
      let j = i;
      while (j < text.length && WORD.test(text[j]!)) j += 1;
      tokens.push({ kind: 'word', text: text.slice(i, j) });
      i = j;
    } else {
      return { error: 'it holds a character that must be inside quotes' };
    }
  }
  return { tokens };
}
