/**
 * Java keystores (JKS and PKCS12) read the way Kafka's Java clients read them, for Node's TLS.
 * The type is told by the file's content, as Java does for both types (`keystore.type.compat`):
 * a store written as JKS works with `ssl.keystore.type = PKCS12` and the other way round.
 *
 * - A truststore gives the PEM of its trusted certificates: a JKS store's trusted-certificate
 *   entries (jks-js), a PKCS12 store's certificates that belong to no key (node-forge). A JKS
 *   truststore without a password is read without checking its integrity, as Java does.
 * - A keystore gives the client certificate and key: a PKCS12 store is handed to Node whole
 *   (`pfx`, which keeps the chain), a JKS store's key entry becomes a PEM chain and key.
 *
 * Errors say what is wrong with the store and never hold a password or key material.
 */
import { createSecureContext } from 'node:tls';
import { parseJks, toPem } from 'jks-js';
import forge from 'node-forge';

export type StoreType = 'JKS' | 'PKCS12';

export class KeystoreReadError extends Error {
  override readonly name = 'KeystoreReadError';

  constructor(
    message: string,
    /** A wrong password (or a store changed since it was written): the file's integrity check failed. */
    readonly wrongPassword = false,
  ) {
    super(message);
  }
}

export type ClientCredentials = { readonly pfx: Buffer; readonly passphrase: string } | { readonly cert: string; readonly key: string };

const JKS_MAGIC = 0xfeedfeed;
const JCEKS_MAGIC = 0xcececece;

/** The store's type by its first bytes: JKS's magic number, or a DER SEQUENCE (PKCS12). */
export function storeType(bytes: Buffer): StoreType {
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === JKS_MAGIC) return 'JKS';
  if (bytes.length >= 4 && bytes.readUInt32BE(0) === JCEKS_MAGIC) {
    throw new KeystoreReadError('it is a JCEKS store, which cannot be read here; convert it to PKCS12 with keytool -importkeystore -deststoretype PKCS12');
  }
  if (bytes.length >= 2 && bytes[0] === 0x30) return 'PKCS12';
  if (bytes.subarray(0, 64).toString('latin1').includes('-----BEGIN')) {
    throw new KeystoreReadError('it is a PEM file, not a JKS or PKCS12 store; give it as a PEM file (MM2: ssl.truststore.type / ssl.keystore.type = PEM)');
  }
  throw new KeystoreReadError('it is neither a JKS nor a PKCS12 store');
}

/** The trusted certificates of a truststore, as PEM. */
export function trustedCertificates(bytes: Buffer, password: string | undefined): string[] {
  const type = storeType(bytes);
  const certificates = type === 'JKS' ? jksTrustedCertificates(bytes, password) : pkcs12TrustedCertificates(bytes, password);
  if (certificates.length === 0) throw new KeystoreReadError(`the ${type} store holds no trusted certificates`);
  return certificates;
}

/** The client certificate and private key of a keystore. `keyPassword` defaults to the store's, as in Kafka. */
export function clientCredentials(bytes: Buffer, storePassword: string, keyPassword: string | undefined): ClientCredentials {
  if (storeType(bytes) === 'PKCS12') {
    try {
      // Node's TLS reads PKCS12 itself; a context made here fails now, not at the first connection.
      createSecureContext({ pfx: bytes, passphrase: storePassword });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      if (/mac verify failure|invalid password/i.test(message)) throw wrongPassword('PKCS12');
      throw new KeystoreReadError(`the PKCS12 store cannot be used for a client certificate (${message})`);
    }
    return { pfx: bytes, passphrase: storePassword };
  }
  const entries = readJks(bytes, storePassword);
  const keyEntries = entries.filter((entry) => 'protectedPrivateKey' in entry);
  if (keyEntries.length === 0) throw new KeystoreReadError('the JKS store holds no private key entry');
  if (keyEntries.length > 1) {
    throw new KeystoreReadError(
      `the JKS store holds ${keyEntries.length} private key entries (${keyEntries.map((e) => e.alias).join(', ')}); Kafka's client would pick one by its own rules, keep only the client's`,
    );
  }
  const alias = keyEntries[0]!.alias;
  let pem: ReturnType<typeof toPem>;
  try {
    pem = toPem(bytes, storePassword, keyPassword ?? storePassword);
  } catch {
    throw new KeystoreReadError(`the key of entry "${alias}" cannot be recovered: the key password is wrong (MM2: ssl.key.password)`, true);
  }
  const { cert, key } = pem[alias] ?? {};
  if (cert === undefined || key === undefined) throw new KeystoreReadError(`the entry "${alias}" has no certificate chain`);
  return { cert: cert.endsWith('\n') ? cert : `${cert}\n`, key };
}

function wrongPassword(type: StoreType): KeystoreReadError {
  return new KeystoreReadError(`the ${type} store's integrity check failed: the password is wrong, or the file was changed`, true);
}

type JksEntry = ReturnType<typeof parseJks>[number];

function readJks(bytes: Buffer, password: string | undefined): JksEntry[] {
  try {
    return parseJks(bytes, password ?? '');
  } catch (error) {
    if (error instanceof Error && error.message === 'Password verification failed') throw wrongPassword('JKS');
    throw new KeystoreReadError('the JKS store is damaged and cannot be read');
  }
}

function jksTrustedCertificates(bytes: Buffer, password: string | undefined): string[] {
  return readJks(bytes, password)
    .filter((entry) => !('protectedPrivateKey' in entry))
    .map((entry) => derToPem((entry as { cert: { value: Buffer } }).cert.value));
}

function pkcs12TrustedCertificates(bytes: Buffer, password: string | undefined): string[] {
  if (password === undefined) throw new KeystoreReadError('a PKCS12 truststore is read with its password, and none is set');
  let p12: forge.pkcs12.Pkcs12Pfx;
  try {
    p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(forge.util.createBuffer(bytes.toString('binary'))), password);
  } catch (error) {
    if (error instanceof Error && /MAC could not be verified/.test(error.message)) throw wrongPassword('PKCS12');
    throw new KeystoreReadError('the PKCS12 store is damaged or uses an algorithm that cannot be read here');
  }
  const bags = p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [];
  // Certificates with a local key id belong to a key entry; Java does not trust those either.
  return bags
    .filter((bag) => bag.attributes['localKeyId'] === undefined)
    .map((bag) =>
      // forge decodes RSA certificates only; the others (EC) come as their ASN.1.
      bag.cert ? forge.pki.certificateToPem(bag.cert).replace(/\r\n/g, '\n') : derToPem(Buffer.from(forge.asn1.toDer(bag.asn1!).getBytes(), 'binary')),
    );
}

function derToPem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
