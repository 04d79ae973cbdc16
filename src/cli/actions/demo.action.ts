import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { firstValueFrom, lastValueFrom, toArray } from '#rxjs';
import { Pipeline, createKafkaClients, loadPipeline, plaintextConnection } from '../../pipeline';
import { startLocalClusters } from '../../local';
import { createLogger, parseListenAddress, type HttpServer } from '../../telemetry';
import { serveHttp } from './serve-http';
import { MirrorflowError } from '../../core/errors';
import type { KafkaClients } from '../../core/ports/kafka-clients';
import type { OutboundRecord } from '../../core/ports/record-writer';

export interface DemoOptions {
  /** Records written before replication starts, and again while it runs. */
  readonly records: number;
  readonly out: NodeJS.WritableStream;
  /** After the copy is complete, keep replicating (and serving HTTP) until Ctrl-C, then check. */
  readonly stay: boolean;
}

const DEMO_TOPICS = [
  { name: 'orders', partitions: 3, compression: 'none' as const },
  { name: 'payments', partitions: 2, compression: 'gzip' as const },
];

/**
 * `mirrorflow demo` (npm run demo): two local clusters from the official jars, sample data on
 * `primary`, the example pipeline (pipelines/primary-to-backup.yaml) replicating it to `backup`
 * with live progress while more data arrives, and a record-by-record check that the copy matches.
 */
export async function demoAction(options: DemoOptions): Promise<void> {
  const say = (line: string): void => void options.out.write(`${line}\n`);
  const logger = createLogger({ level: 'error', format: 'text' });
  say('Starting two local Kafka clusters (the first run downloads the Kafka jars with Maven)...');
  const local = await startLocalClusters({ aliases: ['primary', 'backup'], logger });
  const addresses = local.bootstrapServers();
  say(`  primary  ${addresses['primary']}\n  backup   ${addresses['backup']}`);
  const clients = createKafkaClients(
    [plaintextConnection('primary', addresses['primary']!), plaintextConnection('backup', addresses['backup']!)],
    logger,
    'mirrorflow-demo',
  );
  let http: HttpServer | undefined;
  try {
    await seed(clients, 0, options.records);
    say(
      `Wrote ${options.records.toLocaleString('en-US')} records to each of ${DEMO_TOPICS.map((t) => t.name).join(' and ')} on primary; as many again follow while it replicates.`,
    );

    const file = resolve(__dirname, '..', '..', '..', '..', 'pipelines', 'primary-to-backup.yaml');
    const { config, registry } = await loadPipeline(file, {
      env: { ...process.env, PRIMARY_BOOTSTRAP: addresses['primary'], BACKUP_BOOTSTRAP: addresses['backup'] },
      set: ['flows.0.topic_sync.refresh_interval_ms=2000', 'flows.0.progress.flush_interval_ms=1000'],
    });
    say(`Running ${file}`);
    const pipeline = new Pipeline(config, { logger, registry });
    http = await demoHttp(pipeline, config.http.listen);
    if (http !== undefined) {
      const { host, port } = http.address()!;
      const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
      say(`Watch it: ${base}/ (status page), ${base}/metrics, or \`mirrorflow status ${base} --watch\` in another terminal.`);
    }
    await pipeline.prepare();
    const running = pipeline.run();

    const more = seed(clients, options.records, options.records);
    const total = DEMO_TOPICS.length * 2 * options.records;
    const tty = (options.out as { isTTY?: boolean }).isTTY === true;
    let lastPrinted = 0;
    const started = Date.now();
    let line = '';
    for (;;) {
      const copied = await countOnTarget(clients);
      const status = pipeline.statuses[0];
      line = `  ${copied.toLocaleString('en-US').padStart(9)} / ${total.toLocaleString('en-US')} records on backup, lag ${String(status?.lag ?? 0).padStart(7)}, ${((Date.now() - started) / 1000).toFixed(1)} s`;
      // On a terminal the line updates in place; in a log, one line a second.
      if (tty) options.out.write(`\r${line}`);
      else if (Date.now() - lastPrinted >= 1000 || copied >= total) {
        options.out.write(`${line}\n`);
        lastPrinted = Date.now();
      }
      if (copied >= total) break;
      if (Date.now() - started > 120_000) throw new MirrorflowError('The demo did not finish replicating within 2 minutes.');
      await new Promise((r) => setTimeout(r, 250));
    }
    await more;
    if (tty) say('');
    if (options.stay) {
      say('The copy is complete; replication goes on. Ctrl-C stops it and checks the copy.');
      await new Promise<void>((resolveStop) => process.once('SIGINT', () => resolveStop()));
    }
    pipeline.stop();
    await running;

    say('Checking the copy record by record (key, value, headers, timestamp, partition)...');
    let mismatches = 0;
    for (const topic of DEMO_TOPICS) {
      const source = await digests(clients, 'primary', topic.name);
      const target = await digests(clients, 'backup', `primary.${topic.name}`);
      for (const [partition, digest] of source) {
        const ok = target.get(partition) === digest;
        if (!ok) mismatches++;
        say(`  ${ok ? 'ok  ' : 'DIFF'} ${topic.name}[${partition}] → primary.${topic.name}[${partition}]  ${digest}`);
      }
    }
    if (mismatches > 0) throw new MirrorflowError(`${mismatches} partitions differ between primary and backup.`);
    say('backup holds an exact copy of primary. Stopping the clusters.');
  } finally {
    await http?.close();
    await clients.close();
    await local.stop();
  }
}

async function seed(clients: KafkaClients, from: number, count: number): Promise<void> {
  const admin = clients.admin('primary');
  await firstValueFrom(admin.createTopics(DEMO_TOPICS.map((t) => ({ name: t.name, partitions: t.partitions, replicationFactor: 1, configs: {} }))));
  for (const topic of DEMO_TOPICS) {
    const writer = clients.writer('primary', { role: `demo-${topic.name}`, compression: topic.compression });
    for (let start = from; start < from + count; start += 5000) {
      const records: OutboundRecord[] = [];
      for (let i = start; i < Math.min(start + 5000, from + count); i++) {
        records.push({
          topic: topic.name,
          partition: i % topic.partitions,
          timestamp: Date.now(),
          key: Buffer.from(`${topic.name}-${i % 1000}`),
          // Every 50th record is a tombstone, to show they stay tombstones.
          value: i % 50 === 49 ? null : Buffer.from(JSON.stringify({ id: i, amount: (i * 7) % 1000, currency: 'EUR' })),
          headers: [
            { key: 'source', value: Buffer.from('demo') },
            { key: 'seq', value: Buffer.from(String(i)) },
          ],
        });
      }
      await firstValueFrom(writer.write(records));
    }
  }
}

async function countOnTarget(clients: KafkaClients): Promise<number> {
  const admin = clients.admin('backup');
  const topics = new Set((await firstValueFrom(admin.listTopics())).map((t) => t.name));
  let total = 0;
  for (const t of DEMO_TOPICS) {
    if (!topics.has(`primary.${t.name}`)) continue;
    for (const o of await firstValueFrom(admin.partitionOffsets(`primary.${t.name}`))) total += o.latest;
  }
  return total;
}

async function digests(clients: KafkaClients, cluster: string, topic: string): Promise<Map<number, string>> {
  const hashes = new Map<number, { hash: ReturnType<typeof createHash>; count: number }>();
  const batches = await lastValueFrom(clients.reader(cluster).readToEnd(topic).pipe(toArray()));
  for (const batch of batches) {
    let entry = hashes.get(batch.partition);
    if (!entry) hashes.set(batch.partition, (entry = { hash: createHash('sha256'), count: 0 }));
    for (const r of batch.records) {
      entry.count++;
      entry.hash.update(
        JSON.stringify([
          r.key?.toString('base64') ?? null,
          r.value?.toString('base64') ?? null,
          r.timestamp,
          r.headers.map((h) => [h.key, h.value?.toString('base64') ?? null]),
        ]),
      );
    }
  }
  return new Map([...hashes].sort(([a], [b]) => a - b).map(([p, e]) => [p, `${e.count} records, sha256 ${e.hash.digest('hex').slice(0, 16)}`]));
}

/** The pipeline's HTTP endpoints on its `http.listen`; a port in use there (another run) gives way to a free one, even one the file chose. */
async function demoHttp(pipeline: Pipeline, listen: string | undefined): Promise<HttpServer | undefined> {
  const logger = createLogger({ level: 'error', format: 'text' });
  try {
    return await serveHttp(pipeline, listen, logger);
  } catch (error) {
    // Only an address the demo's file chose can be in use; the default gives way by itself.
    const address = listen === undefined ? undefined : parseListenAddress(listen);
    if (address === undefined) throw error;
    return serveHttp(pipeline, { host: address.host, port: 0 }, logger);
  }
}
