/**
 * Masks secrets in what mirrorflow prints. Two nets, because neither alone is enough:
 * - by shape: PEM private key blocks, `sasl.jaas.config` values, `password="…"` / `clientSecret=…`
 *   and other `key=value` or `"key": "value"` pairs whose key names a secret, `Bearer`/`Basic`
 *   credentials, and JWTs;
 * - by value: every secret this process knows (`knownSecrets`: the loaded pipeline's passwords and
 *   client secrets, the OAuth tokens received), wherever it appears — also inside the Kafka
 *   client's own log lines, which know nothing of our keys.
 * Structured fields are walked (objects, lists, errors and their causes); a field whose key names a
 * secret is replaced whole.
 */
import { MASK, isSecretKey, knownSecrets, type SecretValues } from '../core/secrets';

const PEM_PRIVATE_KEY = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?(?:-----END \1PRIVATE KEY-----|$)/g;
/** The whole value of a JAAS config, up to the end of the line: it holds the password whatever its options are called. */
const JAAS_CONFIG = /(jaas\.config["']?\s*[=:]\s*)[^\n]*/gi;
const AUTH_SCHEME = /\b(Bearer|Basic)(\s+)[A-Za-z0-9\-._~+/]+=*/g;
/** A JSON Web Token (signed or unsecured): base64url header `eyJ…`, payload, signature. */
const JWT = /\beyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*/g;
/**
 * `key=value` (JAAS options, forms, properties) and `"key": "value"` (JSON), with the value quoted
 * or a bare word. A bare `key: value` is left alone: prose says "cannot get an OAuth token: the
 * endpoint …" (a known secret written that way is still masked by value).
 */
const KEY_VALUE = /(["']?)([A-Za-z_][A-Za-z0-9_.-]*)\1(\s*=\s*|(?<=["'])\s*:\s*)("(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[^\s;,&"'}\]]+)/g;

/** `text` with every secret it holds replaced by `[redacted]`. */
export function redactText(text: string, secrets: SecretValues = knownSecrets): string {
  let out = secrets.mask(text);
  if (!/[=:]|BEGIN|Bearer|Basic|eyJ/.test(out)) return out;
  out = out.replace(PEM_PRIVATE_KEY, MASK);
  out = out.replace(JAAS_CONFIG, `$1${MASK}`);
  out = out.replace(AUTH_SCHEME, `$1$2${MASK}`);
  out = out.replace(JWT, MASK);
  out = out.replace(KEY_VALUE, (whole: string, quote: string, key: string, separator: string, value: string) => {
    if (!isSecretKey(key) || value === MASK || value.startsWith('[redacted')) return whole;
    const quoted = value.startsWith('"') || value.startsWith("'") ? `${value[0]}${MASK}${value[0]}` : MASK;
    return `${quote}${key}${quote}${separator}${quoted}`;
  });
  return out;
}

const MAX_DEPTH = 12;

/**
 * A copy of `value` with secrets masked: strings through `redactText`, values under secret keys
 * replaced whole, errors turned into `{ name, message, …, cause }` (their own fields too: the
 * Kafka client's errors carry the broker and the request there).
 */
export function redactValue(value: unknown, secrets: SecretValues = knownSecrets): unknown {
  const seen = new WeakSet<object>();
  const walk = (item: unknown, secret: boolean, depth: number): unknown => {
    if (typeof item === 'string') return secret && item !== '' ? MASK : redactText(item, secrets);
    if (typeof item !== 'object' || item === null) return secret && item !== undefined && item !== null ? MASK : item;
    if (Buffer.isBuffer(item) || item instanceof Date) return secret ? MASK : item;
    if (seen.has(item)) return '[circular]';
    if (depth >= MAX_DEPTH) return '[nested too deep]';
    seen.add(item);
    if (secret) return MASK;
    if (Array.isArray(item)) return item.map((element) => walk(element, false, depth + 1));
    const out: Record<string, unknown> = {};
    if (item instanceof Error) {
      out['name'] = item.name;
      out['message'] = redactText(item.message, secrets);
    }
    for (const [key, field] of Object.entries(item)) out[key] = walk(field, isSecretKey(key), depth + 1);
    if (item instanceof Error && item.cause !== undefined) out['cause'] = walk(item.cause, false, depth + 1);
    return out;
  };
  return walk(value, false, 0);
}

/** Masks the fields of a log entry in place (its symbol-keyed fields, which the logging library owns, untouched). */
export function redactFields(fields: Record<string, unknown>, secrets: SecretValues = knownSecrets): void {
  for (const key of Object.keys(fields)) {
    if (key === 'level') continue;
    const value = fields[key];
    if (isSecretKey(key)) {
      if (value !== undefined && value !== null && value !== '') fields[key] = MASK;
    } else {
      fields[key] = redactValue(value, secrets);
    }
  }
}
