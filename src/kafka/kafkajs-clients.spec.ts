import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterConnection, ClusterSecurity } from '../core/cluster';
import type { Logger } from '../core/ports/logger';
import { KafkajsClients } from './kafkajs-clients';

function warningsFor(securities: Record<string, ClusterSecurity>): { message: string; cluster: unknown; role?: unknown }[] {
  const warnings: { message: string; cluster: unknown; role?: unknown }[] = [];
  const logger: Logger = {
    error: () => undefined,
    info: () => undefined,
    debug: () => undefined,
    warn: (message, meta) => warnings.push({ message, cluster: meta?.['cluster'], ...(meta?.['role'] !== undefined && { role: meta['role'] }) }),
    child: () => logger,
  };
  const clusters: ClusterConnection[] = Object.entries(securities).map(([alias, security]) => ({
    alias,
    bootstrapServers: ['127.0.0.1:9093'],
    security,
    connectionTimeoutMs: 1000,
    requestTimeoutMs: 1000,
  }));
  new KafkajsClients({ clusters, logger, clientIdPrefix: 'spec' });
  return warnings;
}

test('turning TLS verification off is warned about once per cluster, naming it; verified clusters are not', () => {
  const warnings = warningsFor({
    verified: { protocol: 'ssl', ssl: { verifyHostname: true, rejectUnauthorized: true } },
    noHostname: { protocol: 'sasl_ssl', ssl: { verifyHostname: false, rejectUnauthorized: true } },
    nothing: { protocol: 'ssl', ssl: { verifyHostname: true, rejectUnauthorized: false } },
    plain: { protocol: 'plaintext' },
  });
  assert.deepEqual(
    warnings.map((w) => [
      w.cluster,
      /host name verification is off/.test(w.message) ? 'hostname' : /certificate verification is off/.test(w.message) ? 'all' : w.message,
    ]),
    [
      ['noHostname', 'hostname'],
      ['nothing', 'all'],
    ],
  );
});

test("a role's own ssl block that turns verification off is warned about once, naming the cluster and the role", () => {
  const verified = { verifyHostname: true, rejectUnauthorized: true };
  const warnings = warningsFor({
    backup: {
      protocol: 'sasl_ssl',
      ssl: verified,
      roles: {
        producer: { protocol: 'sasl_ssl', ssl: { ...verified, rejectUnauthorized: false } },
        admin: { protocol: 'sasl_ssl', ssl: { ...verified, verifyHostname: false } },
        // Only its own login: its ssl is the cluster's, verified.
        consumer: { protocol: 'sasl_ssl', ssl: verified, sasl: { mechanism: 'plain', username: 'reader', password: 'p' } },
      },
    },
    // The roles use the cluster's unverified block: the cluster's warning covers them.
    primary: {
      protocol: 'ssl',
      ssl: { ...verified, verifyHostname: false },
      roles: { producer: { protocol: 'ssl', ssl: { ...verified, verifyHostname: false }, sasl: { mechanism: 'plain', username: 'w', password: 'p' } } },
    },
  });
  assert.deepEqual(
    warnings.map((w) => [
      w.cluster,
      w.role,
      /host name verification is off/.test(w.message) ? 'hostname' : /certificate verification is off/.test(w.message) ? 'all' : w.message,
    ]),
    [
      ['backup', 'producer', 'all'],
      ['backup', 'admin', 'hostname'],
      ['primary', undefined, 'hostname'],
    ],
  );
  assert.match(warnings[0]!.message, /for the producer role's clients/);
});
