import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterConnection } from '../../core/cluster';
import { describeConnectFailure, describeTlsFailure } from './login-failure';

const base: Omit<ClusterConnection, 'security'> = { alias: 'source', bootstrapServers: ['127.0.0.1:9093'], connectionTimeoutMs: 1000, requestTimeoutMs: 1000 };

/** kafkajs wraps what failed: KafkaJSNonRetriableError { cause: KafkaJSConnectionError { code } }. */
function wrapped(inner: Record<string, unknown>): Error {
  return Object.assign(new Error('gave up'), { name: 'KafkaJSNonRetriableError', cause: Object.assign(new Error(String(inner['message'])), inner) });
}

test('a SASL failure names the user and the mechanism, never the password', () => {
  const connection: ClusterConnection = {
    ...base,
    security: {
      protocol: 'sasl_ssl',
      sasl: { mechanism: 'scram-sha-256', username: 'mirror', password: 'hunter2' },
      ssl: { verifyHostname: true, rejectUnauthorized: true },
    },
  };
  const error = describeConnectFailure(connection, wrapped({ name: 'KafkaJSSASLAuthenticationError', message: 'SASL SCRAM SHA256 authentication failed' }));
  assert.equal(
    error.message,
    'Cluster "source": authentication of user "mirror" with SCRAM-SHA-256 failed: the broker does not know the user or the password is wrong',
  );
  assert.ok(!error.message.includes('hunter2'));
});

test('an untrusted broker certificate names where the trusted CAs come from', () => {
  const connection: ClusterConnection = {
    ...base,
    security: { protocol: 'ssl', ssl: { caFile: '/etc/ca.pem', verifyHostname: true, rejectUnauthorized: true } },
  };
  const error = describeConnectFailure(
    connection,
    wrapped({ name: 'KafkaJSConnectionError', message: 'Connection error: self-signed certificate in certificate chain', code: 'SELF_SIGNED_CERT_IN_CHAIN' }),
  );
  assert.equal(
    error.message,
    'Cluster "source": TLS verification failed: the broker\'s certificate is not trusted (self-signed certificate in certificate chain); trusted CAs come from /etc/ca.pem',
  );
});

test('a host name mismatch says how to turn the check off explicitly', () => {
  const connection: ClusterConnection = { ...base, security: { protocol: 'ssl', ssl: { verifyHostname: true, rejectUnauthorized: true } } };
  const error = describeConnectFailure(
    connection,
    wrapped({ name: 'KafkaJSConnectionError', message: "Hostname/IP does not match certificate's altnames", code: 'ERR_TLS_CERT_ALTNAME_INVALID' }),
  );
  assert.match(error.message, /does not name the host it was reached at .*ssl\.verify_hostname: false; MM2: ssl\.endpoint\.identification\.algorithm=/);
});

test('a TLS alert from the broker without a client certificate says one is required', () => {
  const connection: ClusterConnection = { ...base, security: { protocol: 'ssl', ssl: { verifyHostname: true, rejectUnauthorized: true } } };
  const error = describeConnectFailure(
    connection,
    wrapped({ name: 'KafkaJSConnectionError', message: 'Connection error: ssl3_read_bytes:sslv3 alert certificate unknown:SSL alert number 46' }),
  );
  assert.match(error.message, /the broker refused the TLS handshake: it requires a client certificate and none is configured/);
});

test('anything else stays "cannot be reached" with the cause', () => {
  const connection: ClusterConnection = { ...base, security: { protocol: 'plaintext' } };
  const error = describeConnectFailure(
    connection,
    wrapped({ name: 'KafkaJSConnectionError', message: 'Connection error: connect ECONNREFUSED', code: 'ECONNREFUSED' }),
  );
  assert.match(error.message, /^Cluster "source": cannot be reached/);
});

test('a TLS failure of a later connection is explained from the socket error, and not again once kafkajs wrapped it', () => {
  const connection: ClusterConnection = {
    ...base,
    security: { protocol: 'ssl', ssl: { caFile: '/etc/ca.pem', verifyHostname: true, rejectUnauthorized: true } },
  };
  const socketError = Object.assign(new Error('certificate has expired'), { code: 'CERT_HAS_EXPIRED' });
  const reason = describeTlsFailure(connection, socketError);
  assert.equal(reason, "TLS verification failed: the broker's certificate is not trusted (certificate has expired); trusted CAs come from /etc/ca.pem");
  // What kafkajs makes of the socket error once the socket factory set its message.
  const error = describeConnectFailure(
    connection,
    wrapped({ name: 'KafkaJSConnectionError', message: `Connection error: ${reason}`, code: 'CERT_HAS_EXPIRED' }),
  );
  assert.equal(error.message, `Cluster "source": ${reason}`);
  assert.equal(describeTlsFailure(connection, Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })), undefined);
});
