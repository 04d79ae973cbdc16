import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ClusterConnection, ClusterSecurity } from '../core/cluster';
import type { Logger } from '../core/ports/logger';
import { KafkajsClients } from './kafkajs-clients';

function warningsFor(securities: Record<string, ClusterSecurity>): { message: string; cluster: unknown }[] {
  const warnings: { message: string; cluster: unknown }[] = [];
  const logger: Logger = {
    error: () => undefined,
    info: () => undefined,
    debug: () => undefined,
    warn: (message, meta) => warnings.push({ message, cluster: meta?.['cluster'] }),
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
