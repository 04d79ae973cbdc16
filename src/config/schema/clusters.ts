/** `clusters.<alias>`: a Kafka cluster, how to reach it, and (`security.ts`) how to log in. */
import { z } from '#zod';
import { positiveInt } from './fields';
import { securitySchema } from './security';

/** Cluster aliases become topic prefixes (`primary.orders`) and go into MM2 internal topic names. */
export const clusterAliasPattern = /^[A-Za-z0-9_-]+$/;
/** `host:port`, `[ipv6]:port`. The port range is checked separately (a regex cannot say 1..65535 readably). */
const hostPortPattern = /^(?:\[[0-9A-Fa-f:.]+\]|[^\s:,[\]]+):\d{1,5}$/;

const hostPort = z
  .string()
  .regex(hostPortPattern, { error: 'must be host:port, e.g. 127.0.0.1:9092', abort: true })
  .refine((value) => {
    const port = Number(value.slice(value.lastIndexOf(':') + 1));
    return port >= 1 && port <= 65535;
  }, 'the port must be between 1 and 65535');

/** Kafka's LIST parsing (ConfigDef): trim, then split on commas with optional spaces around them. */
function splitList(value: string): string[] {
  const trimmed = value.trim();
  return trimmed === '' ? [] : trimmed.split(/\s*,\s*/);
}

const bootstrapServers = z
  .union([z.string().transform(splitList), z.array(z.string())], {
    error: 'expected a list of host:port, or one comma-separated string',
  })
  .pipe(z.array(hostPort).min(1))
  .describe('Brokers to bootstrap from, as a list or a comma-separated string (host:port). MM2: `<alias>.bootstrap.servers`.');

export const clusterSchema = z
  .strictObject({
    bootstrap_servers: bootstrapServers,
    client_id: z.string().min(1).optional().describe('Prefix of every client id used against this cluster. MM2: `<alias>.client.id`.'),
    security: securitySchema.prefault({}),
    connection_timeout_ms: positiveInt()
      .default(10000)
      .describe('Time to establish a connection to a broker, ms. MM2: `socket.connection.setup.timeout.ms` (10000).'),
    request_timeout_ms: positiveInt().default(30000).describe('Time to wait for a broker response, ms. MM2: `request.timeout.ms` (30000).'),
  })
  .describe('A Kafka cluster. MM2: the `<alias>.*` properties.');
