/**
 * A cluster of an mm2.properties file as a pipeline cluster: bootstrap servers, security (the
 * SASL user and password out of `sasl.jaas.config`, Kerberos, TLS files and stores), client id and
 * timeouts. TLS stores go over as files: PEM ones as `ca_file`, `cert_file`, `key_file`, JKS and
 * PKCS12 ones as `truststore_file` and `keystore_file` with their passwords.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { PathSegment } from '../config-path';
import { parseJaasConfig } from './jaas-config';
import { CLIENT_ROLES, isConnectionKey, type ClientRole } from './mm2-client-keys';
import type { Mm2Document, Mm2Property, Provenance } from './mm2-document';
import type { Mm2Values } from './mm2-values';
import { writtenAs } from './written-as';
import { MSK_IAM_LOGIN_HANDLER, checkClientCallbackHandler, mapMskIam } from './mm2-msk-iam-mapping';
import { mapKerberos } from './mm2-kerberos-mapping';

const LOGIN_MODULES: Readonly<Record<string, string>> = {
  plain: 'org.apache.kafka.common.security.plain.PlainLoginModule',
  'scram-sha-256': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  'scram-sha-512': 'org.apache.kafka.common.security.scram.ScramLoginModule',
  oauthbearer: 'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginModule',
  aws_msk_iam: 'software.amazon.msk.auth.iam.IAMLoginModule',
  gssapi: 'com.sun.security.auth.module.Krb5LoginModule',
};

/** Kafka's client-credentials login handler, under its current name and the one before Kafka 3.4 moved it. */
const OAUTH_LOGIN_HANDLERS = [
  'org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler',
  'org.apache.kafka.common.security.oauthbearer.secured.OAuthBearerLoginCallbackHandler',
];

export interface ClusterMappingContext {
  readonly document: Mm2Document;
  readonly values: Mm2Values;
  readonly provenance: (prop: Mm2Property) => Provenance;
  /** Relative file paths start here (the JVM's working directory, for MM2). */
  readonly cwd: string;
}

/** `props` is MM2's `clusterProps(alias)`. */
export function mapCluster(alias: string, props: ReadonlyMap<string, Mm2Property>, clustersProp: Mm2Property, context: ClusterMappingContext): void {
  const { document, values, provenance } = context;
  const base: PathSegment[] = ['clusters', alias];
  document.declare(base, provenance(clustersProp));
  // The cluster exists even when its settings are broken: flows that name it are not the problem.
  document.set(base, {});
  const set = (path: PathSegment[], value: unknown, prop: Mm2Property): void => document.set([...base, ...path], value, provenance(prop));

  const bootstrap = props.get('bootstrap.servers');
  if (bootstrap === undefined) {
    const declared = clustersProp.aliases?.get(alias);
    if (declared === undefined) values.report(clustersProp, `cluster "${alias}" has no bootstrap servers`, `add ${alias}.bootstrap.servers = host:9092`, false);
    else {
      const { entry, side } = declared;
      const hint = `add ${writtenAs(entry, `${side}.cluster.bootstrap.servers`, 'host:9092')}`;
      values.report({ key: entry.key, value: entry.value, entry }, `cluster "${alias}" has no bootstrap servers`, hint, false);
    }
    document.fail([...base, 'bootstrap_servers']);
  } else {
    set(['bootstrap_servers'], bootstrap.value.trim(), bootstrap);
  }
  const clientId = props.get('client.id');
  if (clientId !== undefined) set(['client_id'], clientId.value.trim(), clientId);
  const timeouts: [string, string][] = [
    ['request.timeout.ms', 'request_timeout_ms'],
    ['socket.connection.setup.timeout.ms', 'connection_timeout_ms'],
  ];
  for (const [key, field] of timeouts) {
    const prop = props.get(key);
    if (prop !== undefined) {
      const value = values.integerLeaf(prop, key === 'request.timeout.ms' ? 'int' : 'long');
      if (value !== undefined) set([field], value, prop);
    }
  }
  const failuresBefore = values.failures;
  mapSecurity(alias, props, { ...context, set });
  for (const role of CLIENT_ROLES) mapRoleSecurity(alias, role, props, { ...context, set });
  if (values.failures > failuresBefore) document.fail([...base, 'security']);
}

/**
 * A client role's own SASL and TLS settings (`A.producer.sasl.jaas.config`), as MM2's
 * MirrorMakerConfig.clusterProps combines them: `A.<role>.<key>` over `A.<key>` over the
 * top-level `<key>`, key by key. A role whose `sasl.*` keys differ from the cluster's gets its own
 * `security.roles.<role>.sasl`, one whose `ssl.*` keys differ its own `ssl`, each read from the
 * role's combined keys. Other connection settings (bootstrap servers, protocol, timeouts) stay
 * one per cluster.
 */
function mapRoleSecurity(alias: string, role: ClientRole, props: ReadonlyMap<string, Mm2Property>, context: ClusterMappingContext & { set: Setter }): void {
  const { values, set } = context;
  const differs = (key: string): boolean => {
    const own = props.get(`${role}.${key}`);
    const shared = props.get(key);
    return own !== undefined && own !== shared && own.value !== shared?.value;
  };
  const ownKeys = [...new Set([...props.keys()].filter((k) => k.startsWith(`${role}.`)).map((k) => k.slice(role.length + 1)))].filter(differs);
  for (const key of ownKeys.filter((k) => isConnectionKey(k) && !/^(sasl|ssl)\./.test(k))) {
    values.report(
      props.get(`${role}.${key}`)!,
      `a different ${key} for one client role is not supported`,
      `a pipeline cluster has one ${key} for all its clients; set ${alias}.${key}`,
      false,
    );
  }
  const sasl = ownKeys.some((k) => k.startsWith('sasl.'));
  const ssl = ownKeys.some((k) => k.startsWith('ssl.'));
  if (!sasl && !ssl) return;
  const combined = new Map(props);
  for (const [key, prop] of props) if (key.startsWith(`${role}.`)) combined.set(key.slice(role.length + 1), prop);
  const roleSet: Setter = (path, value, prop) => {
    if (path[0] !== 'security' || path[1] === 'protocol') return;
    set(['security', 'roles', role, ...path.slice(1)], value, prop);
  };
  mapSecurity(alias, combined, { ...context, set: roleSet }, { sasl, ssl, warn: false });
}

type Setter = (path: PathSegment[], value: unknown, prop: Mm2Property) => void;

/** `only`: map just these blocks, without the has-no-effect warnings (a role's, whose keys are mostly the cluster's). */
function mapSecurity(
  alias: string,
  props: ReadonlyMap<string, Mm2Property>,
  context: ClusterMappingContext & { set: Setter },
  only: { readonly sasl: boolean; readonly ssl: boolean; readonly warn: boolean } = { sasl: true, ssl: true, warn: true },
): void {
  const { values, set } = context;
  const protocolProp = props.get('security.protocol');
  let protocol = 'plaintext';
  if (protocolProp !== undefined) {
    const chosen = values.choice(protocolProp, ['PLAINTEXT', 'SSL', 'SASL_PLAINTEXT', 'SASL_SSL'] as const);
    if (chosen === undefined) return;
    protocol = chosen.toLowerCase();
    set(['security', 'protocol'], protocol, protocolProp);
  }
  const usesSasl = protocol.startsWith('sasl_');
  const usesTls = protocol === 'ssl' || protocol === 'sasl_ssl';
  const own = (prop: Mm2Property): boolean => prop.key.startsWith(`${alias}.`);
  for (const prop of new Set(props.values())) {
    const key = prop.key.slice(prop.key.startsWith(`${alias}.`) ? alias.length + 1 : 0);
    if (!own(prop) || !only.warn) continue;
    if (!usesSasl && key.startsWith('sasl.')) values.warn(prop, `has no effect: ${alias} does not use SASL (security.protocol is ${protocol.toUpperCase()})`);
    if (!usesTls && key.startsWith('ssl.')) values.warn(prop, `has no effect: ${alias} does not use TLS (security.protocol is ${protocol.toUpperCase()})`);
  }
  if (usesSasl && only.sasl) mapSasl(alias, props, protocolProp!, values, set, context.cwd);
  if (usesTls && only.ssl) mapTls(alias, props, context);
}

function mapSasl(alias: string, props: ReadonlyMap<string, Mm2Property>, protocolProp: Mm2Property, values: Mm2Values, set: Setter, cwd: string): void {
  const mechanismProp = props.get('sasl.mechanism');
  let lower: string;
  if (mechanismProp === undefined) {
    // Kafka's clients take GSSAPI when no mechanism is set; so does mirrorflow, and says so.
    values.warn(
      protocolProp,
      `${alias} uses SASL and sets no sasl.mechanism: Kafka's default, GSSAPI (Kerberos), is used`,
      `set ${alias}.sasl.mechanism to say which`,
    );
    lower = 'gssapi';
  } else {
    const mechanism = values.choice(mechanismProp, ['PLAIN', 'SCRAM-SHA-256', 'SCRAM-SHA-512', 'OAUTHBEARER', 'AWS_MSK_IAM', 'GSSAPI'] as const);
    if (mechanism === undefined) return;
    lower = mechanism.toLowerCase();
  }
  const mechanismAt = mechanismProp ?? protocolProp;
  const mechanism = lower.toUpperCase();
  checkClientCallbackHandler(props, lower, values);
  set(['security', 'sasl', 'mechanism'], lower, mechanismAt);
  const jaasProp = props.get('sasl.jaas.config');
  if (jaasProp === undefined) {
    values.report(
      mechanismAt,
      `${alias} uses SASL but sets no sasl.jaas.config`,
      lower === 'aws_msk_iam'
        ? `set ${alias}.sasl.jaas.config = ${LOGIN_MODULES[lower]} required;`
        : lower === 'gssapi'
          ? `MM2 could read a JAAS file instead; mirrorflow needs ${alias}.sasl.jaas.config = ${LOGIN_MODULES[lower]} required useKeyTab=true keyTab="/path/to/mirrorflow.keytab" principal="mirrorflow@EXAMPLE.COM";`
          : `MM2 could read a JAAS file instead; mirrorflow needs ${alias}.sasl.jaas.config = ${LOGIN_MODULES[lower]} required username="…" password="…";`,
      false,
    );
    return;
  }
  if (values.isOpaque(jaasProp) && !/\s/.test(jaasProp.value.trim())) {
    values.report(
      jaasProp,
      `comes whole from a \${…} reference, and convert cannot take the user and password out of it without printing them`,
      'write the login module in the file and reference only the password, e.g. password="${file:/etc/mm2/secrets.properties:password}"',
    );
    return;
  }
  const parsed = parseJaasConfig(jaasProp.value);
  if ('error' in parsed) {
    values.report(jaasProp, `cannot be read: ${parsed.error}`);
    return;
  }
  const { module } = parsed;
  if (module.loginModule !== LOGIN_MODULES[lower]) {
    values.report(jaasProp, `names login module ${module.loginModule}, which does not go with sasl.mechanism ${mechanism}`, `use ${LOGIN_MODULES[lower]}`);
    return;
  }
  if (lower === 'gssapi') {
    mapKerberos(alias, props, jaasProp, module.options, values, set, cwd);
    return;
  }
  if (lower === 'oauthbearer') {
    mapOAuth(alias, props, mechanismAt, jaasProp, module.options, values, set);
    return;
  }
  if (lower === 'aws_msk_iam') {
    mapMskIam(jaasProp, module.options, values, set);
    return;
  }
  for (const option of ['username', 'password']) {
    const value = module.options.get(option);
    if (value === undefined || value === '') values.report(jaasProp, `has no ${option}`);
    else set(['security', 'sasl', option], value, jaasProp);
  }
  for (const option of module.options.keys()) {
    if (option !== 'username' && option !== 'password')
      values.report(jaasProp, `login option "${option}" is not supported yet`, 'mirrorflow reads username and password');
  }
}

/**
 * OAUTHBEARER with Kafka's client-credentials login handler: the token endpoint, and the client
 * id, secret and scope from their `sasl.oauthbearer.*` keys (Kafka 4.1) or the JAAS options
 * `clientId`, `clientSecret`, `scope` (the keys win, as in Kafka). Without the handler, Kafka's
 * client makes unsecured test tokens, which mirrorflow does not do.
 */
function mapOAuth(
  alias: string,
  props: ReadonlyMap<string, Mm2Property>,
  mechanismProp: Mm2Property,
  jaasProp: Mm2Property,
  jaas: ReadonlyMap<string, string>,
  values: Mm2Values,
  set: Setter,
): void {
  const handler = props.get('sasl.login.callback.handler.class');
  if (handler === undefined) {
    values.report(
      mechanismProp,
      `${alias} uses OAUTHBEARER without sasl.login.callback.handler.class, which makes Kafka's client use unsecured test tokens; mirrorflow does not`,
      `set ${alias}.sasl.login.callback.handler.class = ${OAUTH_LOGIN_HANDLERS[0]} and ${alias}.sasl.oauthbearer.token.endpoint.url`,
      false,
    );
    return;
  }
  const handlerClass = values.literal(handler, 'to know how tokens are got');
  if (handlerClass === undefined) return;
  if (handlerClass === MSK_IAM_LOGIN_HANDLER) {
    set(['security', 'sasl', 'mechanism'], 'aws_msk_iam', handler);
    mapMskIam(jaasProp, jaas, values, set);
    return;
  }
  if (!OAUTH_LOGIN_HANDLERS.includes(handlerClass)) {
    values.report(handler, 'custom Java classes cannot run in mirrorflow', `mirrorflow gets tokens as ${OAUTH_LOGIN_HANDLERS[0]} does (client credentials)`);
    return;
  }
  const endpoint = props.get('sasl.oauthbearer.token.endpoint.url');
  if (endpoint === undefined) {
    values.report(handler, `${alias} has no sasl.oauthbearer.token.endpoint.url`, 'the URL of the OAuth server that issues tokens', false);
  } else {
    set(['security', 'sasl', 'oauth', 'token_endpoint_url'], endpoint.value.trim(), endpoint);
  }
  const fields: [string, string, string, boolean][] = [
    ['sasl.oauthbearer.client.credentials.client.id', 'clientId', 'client_id', true],
    ['sasl.oauthbearer.client.credentials.client.secret', 'clientSecret', 'client_secret', true],
    ['sasl.oauthbearer.scope', 'scope', 'scope', false],
  ];
  for (const [key, option, field, required] of fields) {
    const prop = props.get(key);
    const fromJaas = jaas.get(option);
    if (prop !== undefined) set(['security', 'sasl', 'oauth', field], prop.value.trim(), prop);
    else if (fromJaas !== undefined && fromJaas !== '') set(['security', 'sasl', 'oauth', field], fromJaas, jaasProp);
    else if (required) values.report(jaasProp, `has no ${option}`, `set it here, or ${alias}.${key}`);
  }
  for (const option of jaas.keys()) {
    if (!['clientId', 'clientSecret', 'scope'].includes(option)) {
      values.report(jaasProp, `login option "${option}" is not supported yet`, 'mirrorflow reads clientId, clientSecret and scope');
    }
  }
}

function mapTls(alias: string, props: ReadonlyMap<string, Mm2Property>, context: ClusterMappingContext & { set: Setter }): void {
  const { values, set, cwd } = context;
  const path = (prop: Mm2Property): string => {
    const value = prop.value.trim();
    return values.isOpaque(prop) || isAbsolute(value) ? value : resolvePath(cwd, value);
  };
  mapInlinePem(alias, props, values, set);
  for (const store of ['truststore', 'keystore'] as const) {
    const location = props.get(`ssl.${store}.location`);
    if (location === undefined) continue;
    const typeProp = props.get(`ssl.${store}.type`);
    const type = typeProp === undefined ? 'JKS' : values.isOpaque(typeProp) ? undefined : typeProp.value.trim().toUpperCase();
    if (type === undefined) {
      values.report(typeProp!, `comes from a \${…} reference, and convert needs its value`, 'write the value in the file');
      continue;
    }
    if (type === 'JKS' || type === 'PKCS12') {
      mapJavaStore(alias, store, location, path(location), props, values, set);
      continue;
    }
    if (type !== 'PEM') {
      values.report(location, `is a ${store} of type ${type}, which cannot be read here`, `use a JKS, PKCS12 or PEM ${store}`);
      continue;
    }
    const password = props.get(`ssl.${store}.password`);
    if (password !== undefined) {
      values.report(
        password,
        `cannot be used with a PEM ${store}`,
        store === 'keystore' ? `an encrypted PEM key takes ${alias}.ssl.key.password` : 'a PEM truststore has no password; remove it',
      );
    }
    if (store === 'truststore') {
      set(['security', 'ssl', 'ca_file'], path(location), location);
    } else {
      // A PEM keystore file holds the certificate chain and the private key together.
      set(['security', 'ssl', 'cert_file'], path(location), location);
      set(['security', 'ssl', 'key_file'], path(location), location);
      const keyPassword = props.get('ssl.key.password');
      if (keyPassword !== undefined) set(['security', 'ssl', 'key_password'], keyPassword.value.trim(), keyPassword);
    }
  }
  const endpoint = props.get('ssl.endpoint.identification.algorithm');
  if (endpoint !== undefined && !values.isOpaque(endpoint)) {
    const algorithm = endpoint.value.trim().toLowerCase();
    // Empty turns host name verification off, as in Kafka's Java clients; the chain is still verified.
    if (algorithm === '') set(['security', 'ssl', 'verify_hostname'], false, endpoint);
    else if (algorithm !== 'https') values.report(endpoint, `must be https, or empty to turn host name verification off`);
  }
}

/**
 * PEM in the properties themselves (`ssl.truststore.certificates`, `ssl.keystore.certificate.chain`
 * with `ssl.keystore.key`), which Kafka reads only with the store's type set to PEM.
 */
function mapInlinePem(alias: string, props: ReadonlyMap<string, Mm2Property>, values: Mm2Values, set: Setter): void {
  const inline: [string, 'truststore' | 'keystore', string][] = [
    ['ssl.truststore.certificates', 'truststore', 'ca'],
    ['ssl.keystore.certificate.chain', 'keystore', 'cert'],
    ['ssl.keystore.key', 'keystore', 'key'],
  ];
  for (const [key, store, field] of inline) {
    const prop = props.get(key);
    if (prop === undefined) continue;
    const typeProp = props.get(`ssl.${store}.type`);
    if (typeProp === undefined || (!values.isOpaque(typeProp) && typeProp.value.trim().toUpperCase() !== 'PEM')) {
      values.report(prop, `is read only with ${alias}.ssl.${store}.type = PEM`, `set ${alias}.ssl.${store}.type = PEM`);
      continue;
    }
    if (props.get(`ssl.${store}.location`) !== undefined) {
      values.report(prop, `and ${alias}.ssl.${store}.location are both set`, 'keep one of them');
      continue;
    }
    set(['security', 'ssl', field], prop.value.trim(), prop);
  }
  const chain = props.get('ssl.keystore.certificate.chain');
  const key = props.get('ssl.keystore.key');
  if ((chain === undefined) !== (key === undefined)) {
    values.report((chain ?? key)!, `needs ${alias}.${chain === undefined ? 'ssl.keystore.certificate.chain' : 'ssl.keystore.key'} too`);
  }
  const keyPassword = props.get('ssl.key.password');
  if (key !== undefined && keyPassword !== undefined) set(['security', 'ssl', 'key_password'], keyPassword.value.trim(), keyPassword);
}

/**
 * A JKS or PKCS12 store (Kafka's default type is JKS; Java reads either type from either file):
 * the file and its password, and for a keystore the key's password when it is set.
 */
function mapJavaStore(
  alias: string,
  store: 'truststore' | 'keystore',
  location: Mm2Property,
  file: string,
  props: ReadonlyMap<string, Mm2Property>,
  values: Mm2Values,
  set: Setter,
): void {
  set(['security', 'ssl', `${store}_file`], file, location);
  const password = props.get(`ssl.${store}.password`);
  if (password !== undefined) set(['security', 'ssl', `${store}_password`], password.value.trim(), password);
  else if (store === 'keystore') values.report(location, `needs ${alias}.ssl.keystore.password too`, 'a keystore is read with its password');
  const keyPassword = props.get('ssl.key.password');
  if (store === 'keystore' && keyPassword !== undefined) set(['security', 'ssl', 'key_password'], keyPassword.value.trim(), keyPassword);
}
