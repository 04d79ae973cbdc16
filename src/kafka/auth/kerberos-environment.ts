/**
 * The Kerberos side of a GSSAPI login: the `kerberos` package, loaded when a cluster first needs
 * it, the process's Kerberos environment, and failures said in the operator's terms.
 *
 * MIT's GSS library logs in from a keytab by itself when `KRB5_CLIENT_KTNAME` names one: it asks
 * the KDC for a ticket-granting ticket the first time, keeps it in the credential cache, and asks
 * again once it has expired — what Java's Krb5LoginModule with `useKeyTab=true` and Kafka's
 * relogin thread do for MM2. mirrorflow keeps that cache in the process's memory
 * (`KRB5CCNAME=MEMORY:…`): no ticket is written to disk, and a user's own `kinit` cache is neither
 * read nor replaced. Without a keytab the process uses the ticket cache that `KRB5CCNAME` (or the
 * default) names, as Krb5LoginModule's `useTicketCache=true` does; keeping it fresh (`kinit -R`,
 * k5start) is then the operator's.
 *
 * These are settings of the process, so a process has one Kerberos environment: every cluster
 * that uses GSSAPI in it must name the same keytab and krb5.conf (the pipeline checks refuse
 * others); principals may differ when the keytab holds them all.
 */
import type { KerberosSettings } from '../../core/cluster';
import { MirrorflowError } from '../../core/errors';

export type KerberosIdentity = KerberosSettings;

/**
 * The `kerberos` package's API, as far as mirrorflow uses it; written here rather than imported
 * so that mirrorflow builds where the optional package could not be.
 */
export interface KerberosModule {
  readonly GSS_MECH_OID_KRB5: number;
  initializeClient(service: string, options?: { readonly principal?: string; readonly mechOID?: number }): Promise<KerberosClient>;
}

export interface KerberosClient {
  readonly username: string;
  readonly contextComplete: boolean;
  /** Base64 in and out; the last step of a context may answer null or ''. */
  step(challenge: string): Promise<string | null>;
  wrap(challenge: string, options?: { readonly user?: string; readonly protect?: boolean }): Promise<string>;
  unwrap(challenge: string): Promise<string>;
}

/** A Kerberos login that failed: the KDC unreachable (retried), or refused or misconfigured (not). */
export class KerberosLoginError extends MirrorflowError {
  override readonly name = 'KerberosLoginError';
  override readonly code = 'KERBEROS_LOGIN';
  override readonly retriable: boolean;

  constructor(
    readonly cluster: string,
    /** What failed, without the cluster. */
    readonly reason: string,
    retriable: boolean,
  ) {
    super(`Cluster "${cluster}": ${reason}`);
    this.retriable = retriable;
  }
}

let kerberosModule: KerberosModule | undefined;
let loadFailure: unknown;

/** The `kerberos` package; a clear KerberosLoginError when it is not installed or not built. */
export function loadKerberos(cluster: string): KerberosModule {
  if (kerberosModule !== undefined) return kerberosModule;
  if (loadFailure === undefined) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- an optional native package, loaded only by a pipeline that uses Kerberos
      kerberosModule = require('kerberos') as KerberosModule;
      return kerberosModule;
    } catch (error) {
      loadFailure = error;
    }
  }
  const why = (loadFailure as { code?: string }).code === 'MODULE_NOT_FOUND' ? 'is not installed' : `cannot be loaded (${(loadFailure as Error).message})`;
  throw new KerberosLoginError(
    cluster,
    `SASL GSSAPI (Kerberos) needs the optional package "kerberos", which ${why}: install MIT Kerberos's headers (Debian and Ubuntu: apt-get install libkrb5-dev; RHEL: dnf install krb5-devel) and a C++ compiler, then run npm install again where mirrorflow is installed`,
    false,
  );
}

let environment: { readonly keytab?: string; readonly krb5Config?: string } | undefined;

/**
 * Points the GSS library at `identity`'s keytab and krb5.conf, once per process. A second
 * identity with another keytab or krb5.conf is refused: the library reads them from the
 * environment, which the process has one of.
 */
export function useKerberosEnvironment(cluster: string, identity: KerberosIdentity, env: NodeJS.ProcessEnv = process.env): void {
  if (environment !== undefined) {
    if (environment.keytab !== identity.keytab || environment.krb5Config !== identity.krb5Config) {
      throw new KerberosLoginError(
        cluster,
        `uses keytab ${identity.keytab ?? '(none: the ticket cache)'} and krb5.conf ${identity.krb5Config ?? '(the default)'}, but another cluster of this process uses ${environment.keytab ?? '(none)'} and ${environment.krb5Config ?? '(the default)'}; a process has one Kerberos environment: put every principal in one keytab, or run the flows in separate processes`,
        false,
      );
    }
    return;
  }
  environment = { keytab: identity.keytab, krb5Config: identity.krb5Config };
  if (identity.krb5Config !== undefined) env['KRB5_CONFIG'] = identity.krb5Config;
  if (identity.keytab !== undefined) {
    env['KRB5_CLIENT_KTNAME'] = identity.keytab;
    env['KRB5CCNAME'] = `MEMORY:mirrorflow-${process.pid}`;
  }
}

/** For specs: forget the environment chosen. */
export function resetKerberosEnvironment(): void {
  environment = undefined;
}

/** The KDC could not be asked: it may come back, so the login is retried as an outage. */
const KDC_UNREACHABLE = /Cannot contact any KDC|Cannot find KDC|Connection refused|timed out|Resource temporarily unavailable|Network is unreachable/i;

/** What the GSS library's failure means, for the usual mistakes. */
const HINTS: readonly (readonly [RegExp, string])[] = [
  [
    /Preauthentication failed|Key table entry not found|Keytab contains no suitable keys|Wrong principal in request|Decrypt integrity check failed|Specified version of key is not available/i,
    "the keytab's key does not match the KDC's for this principal (a keytab of another principal, or exported before the principal's key changed: export it again with ktadd or ktutil)",
  ],
  [
    /Server .* not found in Kerberos database|Server not found in Kerberos database/i,
    "the KDC does not know the broker's principal: check sasl.kerberos.service.name and that the broker's principal names the host the client connects to (the bootstrap and advertised host names)",
  ],
  [
    /Client .* not found in Kerberos database|Client not found in Kerberos database/i,
    'the KDC does not know this principal: check the principal and the realm',
  ],
  [
    /No Kerberos credentials available|No credentials cache found|Credentials cache .* not found/i,
    'there is no ticket: give a keytab, or run kinit as the principal first',
  ],
  [/expired/i, 'the ticket has expired: with a keytab mirrorflow gets a new one itself; without, renew it (kinit -R) or give a keytab'],
  [/Clock skew too great/i, "this machine's clock and the KDC's differ by more than the realm allows (5 minutes by default): synchronize the clocks"],
  [/Cannot find KDC for realm|Cannot contact any KDC/i, "check the realm's kdc entries in krb5.conf and that the KDC is up"],
];

/** The GSS library's message without its boilerplate. */
function gssMessage(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  return text.replace(/^Unspecified GSS failure\.\s+Minor code may provide more information:?\s*/i, '').trim() || text;
}

/** A KerberosLoginError for a failed GSS call, naming who logged in and with what — never a key. */
export function kerberosFailure(cluster: string, identity: KerberosIdentity, step: string, error: unknown): KerberosLoginError {
  if (error instanceof KerberosLoginError) return error;
  const message = gssMessage(error);
  const who = `${identity.principal ?? "the keytab's principal"}${identity.keytab === undefined ? ' (ticket cache)' : ` (keytab ${identity.keytab})`}`;
  const hint = HINTS.find(([pattern]) => pattern.test(message))?.[1];
  return new KerberosLoginError(
    cluster,
    `Kerberos login as ${who} failed while ${step}: ${message}${hint === undefined ? '' : ` — ${hint}`}`,
    KDC_UNREACHABLE.test(message),
  );
}
