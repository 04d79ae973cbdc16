/**
 * X.509 certificates for local secured clusters, made with Node's crypto alone (no openssl, no
 * keytool, no npm package): EC P-256 keys, signed with ECDSA-SHA256.
 *
 * Certificate (RFC 5280), DER:
 *   SEQUENCE { tbsCertificate, signatureAlgorithm, BIT STRING signature }
 *   tbsCertificate = SEQUENCE {
 *     [0] EXPLICIT INTEGER 2 (v3) | INTEGER serial | AlgorithmIdentifier ecdsa-with-SHA256
 *     | Name issuer | SEQUENCE { Time notBefore, Time notAfter } | Name subject
 *     | SubjectPublicKeyInfo (Node's `spki` export) | [3] EXPLICIT SEQUENCE OF Extension }
 *   Name = SEQUENCE OF SET { SEQUENCE { OID, UTF8String } }; Time = UTCTime (before 2050)
 *   Extension = SEQUENCE { OID, [BOOLEAN critical], OCTET STRING (DER of the value) }
 */
import { createHash, generateKeyPairSync, randomBytes, sign, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP } from 'node:net';

export interface CertificateAuthority {
  readonly name: string;
  readonly certificatePem: string;
  readonly privateKey: KeyObject;
}

export interface IssuedCertificate {
  /** The certificate, PEM. */
  readonly certificatePem: string;
  /** Its private key, unencrypted PKCS#8 PEM. */
  readonly keyPem: string;
  readonly privateKey: KeyObject;
}

export interface IssueOptions {
  /** The subject's common name. */
  readonly commonName: string;
  /** DNS names and IP addresses for the subjectAltName extension (servers). */
  readonly hosts?: readonly string[];
  /** Valid from this time. Default: one hour ago (clock skew). */
  readonly notBefore?: Date;
  /** Valid until this time. Default: 30 days after notBefore. */
  readonly notAfter?: Date;
}

const OID = {
  ecPublicKey: '1.2.840.10045.2.1',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  commonName: '2.5.4.3',
  organization: '2.5.4.10',
  subjectKeyIdentifier: '2.5.29.14',
  keyUsage: '2.5.29.15',
  subjectAltName: '2.5.29.17',
  basicConstraints: '2.5.29.19',
  authorityKeyIdentifier: '2.5.29.35',
  extKeyUsage: '2.5.29.37',
  serverAuth: '1.3.6.1.5.5.7.3.1',
  clientAuth: '1.3.6.1.5.5.7.3.2',
} as const;

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A new self-signed CA, valid for `days` (default 30). */
export function createCertificateAuthority(name: string, days = 30): CertificateAuthority {
  const { privateKey, publicKey } = newKeyPair();
  const notBefore = new Date(Date.now() - HOUR_MS);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const keyId = keyIdentifier(spki);
  const extensions = [
    extension(OID.basicConstraints, true, seq(bool(true))),
    // keyCertSign and cRLSign: bits 5 and 6.
    extension(OID.keyUsage, true, bitString(Buffer.from([0x06]), 1)),
    extension(OID.subjectKeyIdentifier, false, octets(keyId)),
  ];
  const der = certificate({
    issuer: name,
    subject: name,
    notBefore,
    notAfter: new Date(notBefore.getTime() + days * DAY_MS),
    spki,
    extensions,
    signer: privateKey,
  });
  return { name, certificatePem: pem('CERTIFICATE', der), privateKey };
}

/** A certificate for a broker or a client, signed by `ca`, usable for both TLS server and client authentication. */
export function issueCertificate(ca: CertificateAuthority, options: IssueOptions): IssuedCertificate {
  const { privateKey, publicKey } = newKeyPair();
  const notBefore = options.notBefore ?? new Date(Date.now() - HOUR_MS);
  const notAfter = options.notAfter ?? new Date(notBefore.getTime() + 30 * DAY_MS);
  const spki = publicKey.export({ type: 'spki', format: 'der' });
  const caSpki = new X509Certificate(ca.certificatePem).publicKey.export({ type: 'spki', format: 'der' });
  const extensions = [
    extension(OID.basicConstraints, true, seq()),
    // digitalSignature (bit 0): all an EC key does in a TLS handshake.
    extension(OID.keyUsage, true, bitString(Buffer.from([0x80]), 7)),
    extension(OID.extKeyUsage, false, seq(oid(OID.serverAuth), oid(OID.clientAuth))),
    extension(OID.subjectKeyIdentifier, false, octets(keyIdentifier(spki))),
    extension(OID.authorityKeyIdentifier, false, seq(tlv(0x80, keyIdentifier(caSpki)))),
  ];
  if (options.hosts !== undefined && options.hosts.length > 0) {
    extensions.push(extension(OID.subjectAltName, false, seq(...options.hosts.map(generalName))));
  }
  const der = certificate({ issuer: ca.name, subject: options.commonName, notBefore, notAfter, spki, extensions, signer: ca.privateKey });
  return { certificatePem: pem('CERTIFICATE', der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), privateKey };
}

/** `key` as PKCS#8 PEM encrypted with `passphrase` (AES-256-CBC), as `ssl.key.password` expects. */
export function encryptedKeyPem(key: KeyObject, passphrase: string): string {
  return key.export({ type: 'pkcs8', format: 'pem', cipher: 'aes-256-cbc', passphrase }).toString();
}

function newKeyPair(): { privateKey: KeyObject; publicKey: KeyObject } {
  return generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
}

interface CertificateInput {
  readonly issuer: string;
  readonly subject: string;
  readonly notBefore: Date;
  readonly notAfter: Date;
  readonly spki: Buffer;
  readonly extensions: readonly Buffer[];
  readonly signer: KeyObject;
}

function certificate(input: CertificateInput): Buffer {
  const algorithm = seq(oid(OID.ecdsaWithSha256));
  // A positive serial of 16 random bytes (the high bit cleared so it needs no sign byte).
  const serial = randomBytes(16);
  serial[0] = (serial[0]! & 0x7f) | 0x01;
  const tbs = seq(
    tlv(0xa0, integer(Buffer.from([2]))),
    integer(serial),
    algorithm,
    distinguishedName(input.issuer),
    seq(time(input.notBefore), time(input.notAfter)),
    distinguishedName(input.subject),
    input.spki,
    tlv(0xa3, seq(...input.extensions)),
  );
  const signature = sign('sha256', tbs, input.signer);
  return seq(tbs, algorithm, bitString(signature, 0));
}

function distinguishedName(commonName: string): Buffer {
  const attribute = (type: string, value: string): Buffer => tlv(0x31, seq(oid(type), tlv(0x0c, Buffer.from(value, 'utf8'))));
  return seq(attribute(OID.organization, 'mirrorflow local'), attribute(OID.commonName, commonName));
}

function generalName(host: string): Buffer {
  const version = isIP(host);
  if (version === 4) return tlv(0x87, Buffer.from(host.split('.').map(Number)));
  if (version === 6) throw new Error(`IPv6 subject names are not supported here: ${host}`);
  return tlv(0x82, Buffer.from(host, 'ascii'));
}

function extension(id: string, critical: boolean, value: Buffer): Buffer {
  return critical ? seq(oid(id), bool(true), octets(value)) : seq(oid(id), octets(value));
}

function keyIdentifier(spki: Buffer): Buffer {
  return createHash('sha1').update(spki).digest();
}

function time(date: Date): Buffer {
  const iso = date.toISOString(); // 2026-12-01T05:03:02.123Z
  const digits = iso.slice(0, 19).replace(/[-:T]/g, '') + 'Z'; // 20261201050302Z
  return date.getUTCFullYear() < 2050 ? tlv(0x17, Buffer.from(digits.slice(2), 'ascii')) : tlv(0x18, Buffer.from(digits, 'ascii'));
}

function seq(...items: Buffer[]): Buffer {
  return tlv(0x30, Buffer.concat(items));
}

function integer(bytes: Buffer): Buffer {
  return tlv(0x02, bytes);
}

function bool(value: boolean): Buffer {
  return tlv(0x01, Buffer.from([value ? 0xff : 0x00]));
}

function octets(bytes: Buffer): Buffer {
  return tlv(0x04, bytes);
}

function bitString(bytes: Buffer, unusedBits: number): Buffer {
  return tlv(0x03, Buffer.concat([Buffer.from([unusedBits]), bytes]));
}

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [parts[0]! * 40 + parts[1]!];
  for (const part of parts.slice(2)) {
    const base128 = [part & 0x7f];
    for (let rest = part >>> 7; rest > 0; rest >>>= 7) base128.unshift((rest & 0x7f) | 0x80);
    bytes.push(...base128);
  }
  return tlv(0x06, Buffer.from(bytes));
}

function tlv(tag: number, content: Buffer): Buffer {
  const length = content.length;
  let header: Buffer;
  if (length < 0x80) header = Buffer.from([tag, length]);
  else if (length < 0x100) header = Buffer.from([tag, 0x81, length]);
  else if (length < 0x10000) header = Buffer.from([tag, 0x82, length >> 8, length & 0xff]);
  else throw new Error(`DER value too long: ${length} bytes`);
  return Buffer.concat([header, content]);
}

function pem(label: string, der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN ${label}-----\n${lines.join('\n')}\n-----END ${label}-----\n`;
}
