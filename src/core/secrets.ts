/**
 * What counts as a secret, and the secret values this process knows. The config loader adds the
 * passwords and client secrets of a pipeline once it is loaded (wherever they came from: the file,
 * `${env:…}`, `${file:…}`, `${VAR}`), the OAuth client adds each token it receives; the logger and
 * the entry point mask every one of them wherever it appears in what they print — in a message, a
 * field, an error, or a line of the Kafka client's own logs.
 */

/**
 * A key whose value is a secret: `password`, `ssl.key.password`, `client_secret`, `clientSecret`,
 * `sasl.jaas.config`, `access_token`, `Authorization`, `private_key`, `passphrase`… Compared
 * without case and punctuation, by how the key ends, so `token_endpoint_url` is not one.
 */
export function isSecretKey(key: string): boolean {
  const squashed = key.toLowerCase().replace(/[^a-z0-9]/g, '');
  return SECRET_KEY_ENDINGS.some((ending) => squashed.endsWith(ending));
}

const SECRET_KEY_ENDINGS = [
  'password',
  'passwd',
  'passphrase',
  'secret',
  'token',
  'jaasconfig',
  'privatekey',
  'authorization',
  'credentials',
  'credential',
  'apikey',
  'connectionstring',
];

/** Values shorter than this are not masked by value (a one-letter password would mask every word); keys still are. */
export const MIN_MASKED_LENGTH = 4;
export const MASK = '[redacted]';

/** A set of secret values and a `mask` that replaces each of them (and its URL-encoded form) in a text. */
export class SecretValues {
  private readonly values = new Set<string>();
  private pattern: RegExp | undefined;

  add(value: string | undefined): void {
    if (value === undefined || value.length < MIN_MASKED_LENGTH || this.values.has(value)) return;
    this.values.add(value);
    this.pattern = undefined;
  }

  delete(value: string | undefined): void {
    if (value !== undefined && this.values.delete(value)) this.pattern = undefined;
  }

  get size(): number {
    return this.values.size;
  }

  mask(text: string): string {
    if (this.values.size === 0 || text.length < MIN_MASKED_LENGTH) return text;
    this.pattern ??= this.compile();
    return text.replace(this.pattern, MASK);
  }

  private compile(): RegExp {
    const forms = new Set<string>();
    for (const value of this.values) {
      forms.add(value);
      forms.add(encodeURIComponent(value));
    }
    // Longest first, so a secret that contains another is masked whole.
    const sorted = [...forms].sort((a, b) => b.length - a.length);
    return new RegExp(sorted.map(escapeRegExp).join('|'), 'g');
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** The secrets of this process: what the loaded pipeline and the clients made of it hold. */
export const knownSecrets = new SecretValues();

/**
 * Every string under a secret key of `data` (nested objects and lists), e.g. the SASL passwords,
 * key passphrases and OAuth client secrets of a loaded pipeline, and the options of transforms
 * whose names say they are secrets.
 */
export function collectSecretValues(data: unknown, into: SecretValues = knownSecrets): void {
  const visit = (value: unknown, secret: boolean, depth: number): void => {
    if (depth > 20) return;
    if (typeof value === 'string') {
      if (secret) into.add(value);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item, secret, depth + 1);
    } else if (typeof value === 'object' && value !== null) {
      for (const [key, item] of Object.entries(value)) visit(item, secret || isSecretKey(key), depth + 1);
    }
  };
  visit(data, false, 0);
}
