/**
 * Who a role's own login is to the broker, for its authorization failures: the broker does not
 * say whom it refused, and a cluster whose roles log in differently (`security.roles`) has several
 * principals. The clients of a role with its own login are wrapped so that a
 * KafkaAuthorizationError they raise names that role's principal and the role, not the
 * cluster's default principal (which the pipeline adds to the others).
 */
import { catchError, isObservable, throwError } from '#rxjs';
import type { ClientKind, ClusterSecurity } from '../../core/cluster';
import { KafkaAuthorizationError } from '../../core/errors';

/** The principal of a login as Kafka's default principal builders make it, with the mechanism. */
export function principalOf(security: Omit<ClusterSecurity, 'roles'>): string {
  const { sasl, ssl } = security;
  if (sasl?.mechanism === 'oauthbearer') return `the principal of the OAuth client ${sasl.oauth.clientId}'s token (its subject), SASL OAUTHBEARER`;
  if (sasl?.mechanism === 'aws_msk_iam') return 'the IAM identity of the AWS credentials, SASL AWS_MSK_IAM';
  if (sasl?.mechanism === 'gssapi')
    return `the Kerberos principal ${sasl.kerberos.principal ?? (sasl.kerberos.keytab === undefined ? 'of the ticket cache' : `of the keytab ${sasl.kerberos.keytab}`)} (as the brokers' sasl.kerberos.principal.to.local.rules map it), SASL GSSAPI`;
  if (sasl !== undefined) return `User:${sasl.username}, SASL ${sasl.mechanism.toUpperCase()}`;
  if (ssl?.certFile !== undefined) return `the principal of the client certificate ${ssl.certFile}`;
  if (ssl?.keystoreFile !== undefined) return `the principal of the client certificate of the keystore ${ssl.keystoreFile}`;
  if (ssl?.cert !== undefined) return 'the principal of the inline client certificate (ssl.cert)';
  return 'User:ANONYMOUS, no credentials';
}

/** What a role's refused login is called in messages: its principal and where it is set. */
export function rolePrincipal(role: ClientKind, security: Omit<ClusterSecurity, 'roles'>): string {
  return `${principalOf(security)}, the ${role} role's own login (security.roles.${role})`;
}

/**
 * `port` with every authorization failure of its methods naming `principal`: thrown, rejected or
 * sent down an Observable. Failures that already name a principal, and everything else, pass
 * unchanged.
 */
export function namingPrincipal<T extends object>(port: T, principal: string): T {
  const named = (error: unknown): unknown => (error instanceof KafkaAuthorizationError && error.principal === undefined ? error.as(principal) : error);
  return new Proxy(port, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]): unknown => {
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          throw named(error);
        }
        if (isObservable(result)) return result.pipe(catchError((error: unknown) => throwError(() => named(error))));
        if (result instanceof Promise) {
          return result.catch((error: unknown) => {
            throw named(error);
          });
        }
        return result;
      };
    },
  });
}
