import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { parsePipeline } from '../config';
import { KafkaAuthorizationError, KafkaTransportError } from '../core/errors';
import { withClusterPrincipal } from './cluster-principal';

const config = parsePipeline(
  `
clusters:
  primary: { bootstrap_servers: [a:9092] }
  scram:
    bootstrap_servers: [b:9093]
    security: { protocol: sasl_ssl, sasl: { mechanism: scram-sha-512, username: creator, password: pw-secret } }
  keystore:
    bootstrap_servers: [c:9093]
    security: { protocol: ssl, ssl: { keystore_file: /etc/kafka/client.p12, keystore_password: ks-secret } }
flows:
  - { source: primary, target: scram }
`,
  'pipeline.yaml',
);

const refused = (cluster: string): KafkaAuthorizationError => new KafkaAuthorizationError(cluster, 'not authorized to create topics', undefined);

describe('withClusterPrincipal', () => {
  it("names the principal of the refused cluster's login, never its password", () => {
    const error = withClusterPrincipal(refused('scram'), config);
    assert.ok(error instanceof KafkaAuthorizationError);
    assert.equal(error.message, 'Cluster "scram": not authorized to create topics (as User:creator, SASL SCRAM-SHA-512)');
    assert.doesNotMatch(error.message, /pw-secret/);
  });

  it('names the certificate of a keystore and, without credentials, the anonymous user', () => {
    assert.match(
      String(withClusterPrincipal(refused('keystore'), config)),
      /\(as the principal of the client certificate of the keystore \/etc\/kafka\/client\.p12\)/,
    );
    assert.match(String(withClusterPrincipal(refused('primary'), config)), /\(as User:ANONYMOUS, no credentials\)/);
  });

  it('leaves a failure that names its principal already (a role with its own login), and every other failure, as it is', () => {
    const named = new KafkaAuthorizationError('scram', 'not authorized', 'User:writer, SASL PLAIN');
    assert.equal(withClusterPrincipal(named, config), named);
    const other = new KafkaTransportError('scram', 'connection refused', true);
    assert.equal(withClusterPrincipal(other, config), other);
  });
});
