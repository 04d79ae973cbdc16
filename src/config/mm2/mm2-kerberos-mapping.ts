/**
 * SASL GSSAPI of an mm2.properties cluster: Krb5LoginModule's options in `sasl.jaas.config` and
 * `sasl.kerberos.service.name`, as the pipeline's `security.sasl.kerberos` block.
 */
import { isAbsolute, resolve as resolvePath } from 'node:path';
import type { PathSegment } from '../config-path';
import type { Mm2Property } from './mm2-document';
import type { Mm2Values } from './mm2-values';

type Setter = (path: PathSegment[], value: unknown, prop: Mm2Property) => void;

/** Krb5LoginModule options whose meaning mirrorflow keeps without a setting (or which a client does not need). */
const KERBEROS_IMPLIED_OPTIONS = new Set(['storeKey', 'doNotPrompt', 'isInitiator', 'refreshKrb5Config', 'renewTGT']);

/**
 * GSSAPI with Krb5LoginModule: the service name from `sasl.kerberos.service.name` (or the JAAS
 * `serviceName`), a keytab login (`useKeyTab=true keyTab=… principal=…`) or the ticket cache
 * (`useTicketCache=true`).
 */
export function mapKerberos(
  alias: string,
  props: ReadonlyMap<string, Mm2Property>,
  jaasProp: Mm2Property,
  options: ReadonlyMap<string, string>,
  values: Mm2Values,
  set: Setter,
  cwd: string,
): void {
  const serviceProp = props.get('sasl.kerberos.service.name');
  if (serviceProp !== undefined) set(['security', 'sasl', 'kerberos', 'service_name'], serviceProp.value.trim(), serviceProp);
  else if (options.get('serviceName') !== undefined) set(['security', 'sasl', 'kerberos', 'service_name'], options.get('serviceName')!, jaasProp);
  else
    values.report(
      jaasProp,
      `${alias} uses GSSAPI but names no Kerberos service`,
      `set ${alias}.sasl.kerberos.service.name = kafka (the first part of the brokers' principals)`,
    );
  const flag = (name: string): boolean => options.get(name)?.toLowerCase() === 'true';
  const principal = options.get('principal');
  if (principal !== undefined) set(['security', 'sasl', 'kerberos', 'principal'], principal, jaasProp);
  if (flag('useKeyTab')) {
    const keytab = options.get('keyTab');
    if (keytab === undefined || keytab === '') values.report(jaasProp, 'has useKeyTab=true but no keyTab', 'add keyTab="/path/to/mirrorflow.keytab"');
    // A relative keyTab is the JVM's working directory's, as for MM2.
    else set(['security', 'sasl', 'kerberos', 'keytab'], values.isOpaque(jaasProp) || isAbsolute(keytab) ? keytab : resolvePath(cwd, keytab), jaasProp);
  } else if (options.get('keyTab') !== undefined) {
    values.report(jaasProp, 'names a keyTab without useKeyTab=true, so Krb5LoginModule would not use it', 'add useKeyTab=true');
  } else if (!flag('useTicketCache')) {
    values.report(
      jaasProp,
      'logs in neither from a keytab nor from the ticket cache',
      'add useKeyTab=true keyTab="…" principal="…" (or useTicketCache=true after kinit)',
    );
  }
  for (const [option, value] of options) {
    if (['serviceName', 'principal', 'useKeyTab', 'keyTab', 'useTicketCache'].includes(option) || KERBEROS_IMPLIED_OPTIONS.has(option)) continue;
    if (option === 'debug') {
      if (value.toLowerCase() === 'true') values.warn(jaasProp, 'debug=true has no effect', "set KRB5_TRACE=/dev/stderr for MIT Kerberos's trace");
      continue;
    }
    values.report(jaasProp, `login option "${option}" is not supported`, 'mirrorflow reads serviceName, principal, useKeyTab, keyTab and useTicketCache');
  }
}
