/**
 * A real MIT Kerberos KDC on loopback, for the Kerberos tests: Debian's krb5-kdc and
 * krb5-admin-server (krb5kdc, kdb5_util, kadmin.local), a realm of its own in a scratch folder, its
 * principals made with random keys and exported to keytabs. The KDC runs as a child process on a
 * free port and is stopped with the test file; nothing of the machine's own Kerberos (/etc/krb5.conf,
 * /var/lib/krb5kdc) is read or written.
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { waitFor } from './wait-for';

const run = promisify(execFile);
const HOST = '127.0.0.1';

export interface Kdc {
  readonly realm: string;
  readonly port: number;
  /** krb5.conf for clients and brokers (Java's `-Djava.security.krb5.conf`, MIT's `KRB5_CONFIG`). */
  readonly krb5Config: string;
  /**
   * Makes `principal` (without the realm) with a random key and writes its keys to a keytab
   * (`keytab`, default a new file in the KDC's folder), whose path it answers.
   */
  addPrincipal(principal: string, options?: { maxLife?: string; keytab?: string }): Promise<string>;
  /** Gives `principal` a new random key, so keytabs exported before no longer log in. */
  rekey(principal: string): Promise<void>;
  /** When the KDC issued `principal` a ticket-granting ticket (AS_REQ answered), in Unix seconds, from its log. */
  initialTicketTimes(principal: string): Promise<number[]>;
  stop(): Promise<void>;
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, HOST, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Where Debian puts the KDC's programs; /usr/sbin may not be on a user's PATH. */
function sbin(program: string): string {
  return join('/usr/sbin', program);
}

export async function startKdc(dir: string, realm = 'MIRRORFLOW.TEST'): Promise<Kdc> {
  await mkdir(dir, { recursive: true });
  const port = await freePort();
  const kdcConfig = join(dir, 'kdc.conf');
  const krb5Config = join(dir, 'krb5.conf');
  const log = join(dir, 'kdc.log');
  await writeFile(
    kdcConfig,
    [
      '[kdcdefaults]',
      ` kdc_listen = ${HOST}:${port}`,
      ` kdc_tcp_listen = ${HOST}:${port}`,
      '[realms]',
      ` ${realm} = {`,
      `  database_name = ${join(dir, 'principal')}`,
      `  key_stash_file = ${join(dir, 'stash')}`,
      `  acl_file = ${join(dir, 'kadm5.acl')}`,
      '  max_life = 10h',
      '  supported_enctypes = aes256-cts-hmac-sha1-96:normal aes128-cts-hmac-sha1-96:normal',
      ' }',
      '[logging]',
      ` kdc = FILE:${log}`,
      '',
    ].join('\n'),
  );
  // TCP only (udp_preference_limit = 1) and no KDC from DNS. Host names are canonicalized as by
  // default: Kafka's Java client names a broker reached at 127.0.0.1 by its reverse lookup
  // (localhost), and MIT Kerberos does the same, so both ask for kafka/localhost.
  await writeFile(
    krb5Config,
    [
      '[libdefaults]',
      ` default_realm = ${realm}`,
      ' dns_lookup_kdc = false',
      ' dns_lookup_realm = false',
      ' udp_preference_limit = 1',
      '[realms]',
      ` ${realm} = {`,
      `  kdc = ${HOST}:${port}`,
      ' }',
      '',
    ].join('\n'),
  );
  await writeFile(join(dir, 'kadm5.acl'), '');
  const env = { ...process.env, KRB5_CONFIG: krb5Config, KRB5_KDC_PROFILE: kdcConfig };
  await run(sbin('kdb5_util'), ['-r', realm, '-P', `master-${port}`, 'create', '-s'], { env });
  const admin = async (query: string): Promise<string> => (await run(sbin('kadmin.local'), ['-r', realm, '-q', query], { env })).stdout;

  const kdc: ChildProcess = spawn(sbin('krb5kdc'), ['-n', '-r', realm, '-P', join(dir, 'kdc.pid')], { env, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => kdc.once('exit', () => resolve()));
  await waitFor(async () => (await readFile(log, 'utf8').catch(() => '')).includes('commencing operation'), {
    what: 'the Kerberos KDC to start',
    timeoutMs: 30_000,
  });

  return {
    realm,
    port,
    krb5Config,
    async addPrincipal(principal, options = {}) {
      await admin(`addprinc -randkey ${options.maxLife === undefined ? '' : `-maxlife "${options.maxLife}" `}${principal}`);
      const keytab = options.keytab ?? join(dir, `${principal.replace(/[/@]/g, '_')}.keytab`);
      await admin(`ktadd -k ${keytab} ${principal}`);
      return keytab;
    },
    async rekey(principal) {
      await admin(`cpw -randkey ${principal}`);
    },
    async initialTicketTimes(principal) {
      const escape = (text: string): string => text.replace(/[.]/g, '\\.');
      const pattern = new RegExp(`AS_REQ .*: ISSUE: authtime (\\d+),.* ${escape(principal)}@${escape(realm)} for krbtgt/`);
      return (await readFile(log, 'utf8')).split('\n').flatMap((line) => {
        const match = pattern.exec(line);
        return match === null ? [] : [Number(match[1])];
      });
    },
    async stop() {
      if (kdc.exitCode === null) {
        kdc.kill('SIGTERM');
        await exited;
      }
    },
  };
}
