/** `clusters.<alias>.security`: the transport security of a cluster's clients (TLS, SASL, OAuth, AWS MSK IAM, per-role credentials). */
import { z } from '#zod';
import { caseInsensitiveEnum } from './fields';

const oauthSchema = z
  .strictObject({
    token_endpoint_url: z
      .string()
      .regex(/^https?:\/\/[^\s/]+/i, 'must be an http:// or https:// URL')
      .describe(
        "The OAuth server's token endpoint; mirrorflow asks it for tokens with the client-credentials grant. MM2: `sasl.oauthbearer.token.endpoint.url`.",
      ),
    client_id: z.string().min(1).describe('OAuth client id. MM2: `clientId` in `sasl.jaas.config`, or `sasl.oauthbearer.client.credentials.client.id`.'),
    client_secret: z
      .string()
      .min(1)
      .describe(
        'OAuth client secret; use `${VAR}`, `${env:VAR}` or `${file:PATH:KEY}` to keep it out of the file. MM2: `clientSecret` in `sasl.jaas.config`, or `sasl.oauthbearer.client.credentials.client.secret`.',
      ),
    scope: z
      .string()
      .min(1)
      .optional()
      .describe('Scope to ask for, if the OAuth server needs one. MM2: `scope` in `sasl.jaas.config`, or `sasl.oauthbearer.scope`.'),
  })
  .describe('OAuth client credentials; required with mechanism `oauthbearer`, and only then.');

const kerberosSchema = z
  .strictObject({
    service_name: z
      .string()
      .regex(/^[^\s/@]+$/, 'must be a service name such as kafka, without "/" or "@"')
      .describe(
        "The brokers' Kerberos service name: their principals are `<service_name>/<host>@<REALM>`. MM2: `sasl.kerberos.service.name`, or `serviceName` in `sasl.jaas.config`.",
      ),
    principal: z
      .string()
      .min(1)
      .optional()
      .describe(
        "The principal to log in as, e.g. `mirrorflow@EXAMPLE.COM`; default the keytab's (or the ticket cache's). MM2: `principal` in `sasl.jaas.config`.",
      ),
    keytab: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Keytab to log in from, relative to the pipeline file; tickets are renewed from it as they expire. Without it, the ticket cache of `kinit` (`KRB5CCNAME`), which you keep fresh. Every cluster of a process uses the same keytab. MM2: `keyTab` in `sasl.jaas.config` with `useKeyTab=true`.',
      ),
    krb5_config: z
      .string()
      .min(1)
      .optional()
      .describe(
        'krb5.conf to use, relative to the pipeline file; default `KRB5_CONFIG`, else /etc/krb5.conf. MM2: the JVM option `-Djava.security.krb5.conf`.',
      ),
  })
  .describe('Kerberos login; required with mechanism `gssapi`, and only then.');

const saslSchema = z
  .strictObject({
    mechanism: caseInsensitiveEnum(
      ['plain', 'scram-sha-256', 'scram-sha-512', 'oauthbearer', 'aws_msk_iam', 'gssapi'],
      'SASL mechanism. `aws_msk_iam`: AWS MSK IAM, tokens signed with AWS credentials and sent over OAUTHBEARER. `gssapi`: Kerberos, with a `kerberos` block. MM2: `sasl.mechanism` (PLAIN, SCRAM-SHA-256, SCRAM-SHA-512, OAUTHBEARER, AWS_MSK_IAM, GSSAPI; upper case accepted).',
    ).required(),
    username: z.string().min(1).optional().describe('SASL user name; required with `plain` and `scram-*`. MM2: the `username` in `sasl.jaas.config`.'),
    password: z
      .string()
      .min(1)
      .optional()
      .describe(
        'SASL password; required with `plain` and `scram-*`. Use `${VAR}`, `${env:VAR}` or `${file:PATH:KEY}` to keep it out of the file. MM2: the `password` in `sasl.jaas.config`.',
      ),
    oauth: oauthSchema.optional(),
    kerberos: kerberosSchema.optional(),
    region: z
      .string()
      .regex(/^[a-z]{2}(-[a-z]+)+-\d+$/, 'must be an AWS region, e.g. eu-west-1')
      .optional()
      .describe(
        'AWS region of the MSK cluster, with mechanism `aws_msk_iam` only; default the region in the bootstrap host names (`b-1.<cluster>.kafka.<region>.amazonaws.com`), else `AWS_REGION`. MM2: read from the bootstrap servers.',
      ),
    profile: z
      .string()
      .min(1)
      .optional()
      .describe(
        "AWS credentials profile (`~/.aws/credentials`, `~/.aws/config`) to sign with, with mechanism `aws_msk_iam` only; default AWS's default credential chain. MM2: `awsProfileName` in `sasl.jaas.config`.",
      ),
    role_arn: z
      .string()
      .regex(/^arn:aws[a-z-]*:iam::\d{12}:role\/\S+$/, 'must be an IAM role ARN, e.g. arn:aws:iam::123456789012:role/msk-mirror')
      .optional()
      .describe(
        "IAM role to assume (through STS, with the default chain's credentials) and sign with, with mechanism `aws_msk_iam` only; not with `profile`. MM2: `awsRoleArn` in `sasl.jaas.config`.",
      ),
    role_session_name: z
      .string()
      .min(1)
      .optional()
      .describe('Session name when assuming `role_arn`; default `MSKSASLDefaultSession`. MM2: `awsRoleSessionName` in `sasl.jaas.config`.'),
  })
  .describe('SASL credentials; required when `protocol` is `sasl_plaintext` or `sasl_ssl`, and only then.');

const sslSchema = z
  .strictObject({
    ca_file: z.string().min(1).optional().describe('PEM file of the CA(s) to trust, relative to the pipeline file. MM2: `ssl.truststore.location`.'),
    ca: z
      .string()
      .min(1)
      .optional()
      .describe('PEM certificates of the CA(s) to trust, in the file itself (with or besides `ca_file`). MM2: `ssl.truststore.certificates`.'),
    cert_file: z.string().min(1).optional().describe('PEM client certificate for mutual TLS, relative to the pipeline file. MM2: `ssl.keystore.location`.'),
    key_file: z.string().min(1).optional().describe('PEM private key of `cert_file`, relative to the pipeline file. MM2: `ssl.keystore.location`.'),
    cert: z
      .string()
      .min(1)
      .optional()
      .describe('PEM client certificate chain in the file itself, instead of `cert_file`. MM2: `ssl.keystore.certificate.chain`.'),
    key: z
      .string()
      .min(1)
      .optional()
      .describe(
        'PEM private key of `cert`, instead of `key_file`; use `${env:VAR}` or `${file:PATH:KEY}` to keep it out of the file. MM2: `ssl.keystore.key`.',
      ),
    truststore_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'JKS or PKCS12 truststore of the CA(s) to trust (the type is read from the file, as Java does), relative to the pipeline file; with or besides `ca_file`. MM2: `ssl.truststore.location` with `ssl.truststore.type` JKS or PKCS12.',
      ),
    truststore_password: z
      .string()
      .optional()
      .describe('Password of `truststore_file`; a JKS truststore without one is read unchecked, as Java does. MM2: `ssl.truststore.password`.'),
    keystore_file: z
      .string()
      .min(1)
      .optional()
      .describe(
        'JKS or PKCS12 keystore with the client certificate and key for mutual TLS, instead of `cert_file` and `key_file`; relative to the pipeline file. MM2: `ssl.keystore.location` with `ssl.keystore.type` JKS or PKCS12.',
      ),
    keystore_password: z.string().optional().describe('Password of `keystore_file`; required with it. MM2: `ssl.keystore.password`.'),
    key_password: z
      .string()
      .optional()
      .describe(
        'Passphrase of an encrypted `key_file` or `key`, or of the key in a JKS `keystore_file` when it differs from `keystore_password`. MM2: `ssl.key.password`.',
      ),
    verify_hostname: z
      .boolean()
      .default(true)
      .describe(
        "Check that a broker's certificate names the host it was reached at. Turning it off is logged as a warning at start. MM2: `ssl.endpoint.identification.algorithm` (`https`; empty = off).",
      ),
    reject_unauthorized: z
      .boolean()
      .default(true)
      .describe("Verify the brokers' certificates at all (chain and host name); turn off only for throwaway test clusters. No MM2 equivalent."),
  })
  .describe('TLS settings; used when `protocol` is `ssl` or `sasl_ssl`, and only then.');

function roleSecuritySchema(clients: string, prefix: string) {
  return z
    .strictObject({ sasl: saslSchema.optional(), ssl: sslSchema.optional() })
    .optional()
    .describe(`SASL and TLS settings of ${clients}, instead of the cluster's. MM2: \`<alias>.${prefix}.sasl.*\`, \`<alias>.${prefix}.ssl.*\`.`);
}

export const securitySchema = z
  .strictObject({
    protocol: caseInsensitiveEnum(
      ['plaintext', 'ssl', 'sasl_plaintext', 'sasl_ssl'],
      'How clients talk to the brokers. MM2: `security.protocol` (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL; upper case accepted).',
    ).withDefault('plaintext'),
    sasl: saslSchema.optional(),
    ssl: sslSchema.optional(),
    roles: z
      .strictObject({
        consumer: roleSecuritySchema('consumers (the replication consumer, and the readers of internal topics and group members)', 'consumer'),
        producer: roleSecuritySchema('producers (records, progress, offset syncs, checkpoints, heartbeats)', 'producer'),
        admin: roleSecuritySchema('the admin client (topics, configs, ACLs, groups)', 'admin'),
      })
      .optional()
      .describe(
        "Other credentials for one kind of client of this cluster, e.g. a producer user without CREATE and an admin user with it. A role's `sasl` or `ssl` replaces the cluster's block whole; a block it does not set is the cluster's. MM2: `<alias>.consumer.*`, `<alias>.producer.*`, `<alias>.admin.*`.",
      ),
  })
  .describe('Transport security of every client of this cluster. MM2: `<alias>.security.protocol`, `<alias>.ssl.*`, `<alias>.sasl.*`.');
