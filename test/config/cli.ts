/**
 * Runs `node dist/src/cli/main.js …` for the configuration tests, in a chosen folder and
 * environment (relative `${file:…}` paths of an mm2.properties start in the working directory),
 * and lists what is on a cluster, to show that a command wrote nothing.
 */
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { firstValueFrom } from '#rxjs';
import { KafkajsClients } from '../../src/kafka';
import { silentLogger } from '../../src/core/ports/logger';
import { waitFor } from '../support/wait-for';

/** `dist/src/cli/main.js`, from `dist/test/config`. */
export const MIRRORFLOW_MAIN = resolve(__dirname, '..', '..', 'src', 'cli', 'main.js');

export interface CliRun {
  readonly code: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export function mirrorflow(args: readonly string[], options: { cwd?: string; env?: NodeJS.ProcessEnv; timeoutMs?: number } = {}): Promise<CliRun> {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [MIRRORFLOW_MAIN, ...args], {
      cwd: options.cwd,
      env: { ...process.env, ...(options.env ?? {}) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`mirrorflow ${args.join(' ')} did not exit within ${options.timeoutMs ?? 60_000} ms; stderr:\n${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolveRun({ code, stdout, stderr });
    });
  });
}

/** Topic and consumer group names on one cluster, through the product's own adapters. */
export class ClusterInventory {
  private readonly clients: KafkajsClients;

  constructor(bootstrap: string) {
    this.clients = new KafkajsClients({
      clusters: [
        {
          alias: 'inventory',
          bootstrapServers: bootstrap.split(','),
          security: { protocol: 'plaintext' },
          connectionTimeoutMs: 10_000,
          requestTimeoutMs: 30_000,
        },
      ],
      logger: silentLogger,
      clientIdPrefix: 'mirrorflow-test-inventory',
    });
  }

  /** Names of topics and groups that contain any of `texts`, sorted. */
  async namesContaining(texts: readonly string[]): Promise<{ topics: string[]; groups: string[] }> {
    const admin = this.clients.admin('inventory');
    const [topics, groups] = await Promise.all([firstValueFrom(admin.listTopics()), firstValueFrom(admin.listGroups())]);
    const matches = (name: string): boolean => texts.some((text) => name.includes(text));
    return {
      topics: topics
        .map((t) => t.name)
        .filter(matches)
        .sort(),
      groups: groups.filter(matches).sort(),
    };
  }

  /** Commits `offsets` for `group`, asking again while the group's coordinator is not ready (a cluster that just started). */
  async commitOffsets(group: string, topic: string, offsets: readonly number[]): Promise<void> {
    await waitFor(
      async () => {
        await firstValueFrom(
          this.clients.admin('inventory').commitGroupOffsets(
            group,
            offsets.map((offset, partition) => ({ topic, partition, offset, metadata: '' })),
          ),
        );
        return true;
      },
      { what: `the offsets of ${group} committed` },
    );
  }

  async close(): Promise<void> {
    await this.clients.close();
  }
}
