/**
 * AWS MSK IAM in an mm2.properties file: the mechanism AWS_MSK_IAM, or OAUTHBEARER with AWS's
 * login handler, and the JAAS options of AWS's aws-msk-iam-auth, as a pipeline's
 * `sasl: { mechanism: aws_msk_iam, … }`.
 */
import type { PathSegment } from '../config-path';
import type { Mm2Property } from './mm2-document';
import type { Mm2Values } from './mm2-values';

type Setter = (path: PathSegment[], value: unknown, prop: Mm2Property) => void;

/**
 * AWS's MSK IAM library (aws-msk-iam-auth) as its README configures clients: mechanism
 * AWS_MSK_IAM with its login module and client callback handler, or OAUTHBEARER with its login
 * callback handler (which MSK's docs also set as the client callback handler).
 */
export const MSK_IAM_LOGIN_HANDLER = 'software.amazon.msk.auth.iam.IAMOAuthBearerLoginCallbackHandler';
const MSK_IAM_CLIENT_HANDLER = 'software.amazon.msk.auth.iam.IAMClientCallbackHandler';
/** aws-msk-iam-auth's JAAS options (its MSKCredentialProvider) and what each becomes. */
const MSK_IAM_OPTIONS: Readonly<Record<string, string>> = { awsProfileName: 'profile', awsRoleArn: 'role_arn', awsRoleSessionName: 'role_session_name' };
const MSK_IAM_NO_EFFECT: Readonly<Record<string, string>> = {
  awsStsRegion: "the role is assumed through the STS endpoint of the cluster's region",
  awsDebugCreds: 'mirrorflow does not log the caller identity',
  awsMaxRetries: 'mirrorflow retries a failed signing like a broker outage',
  awsMaxBackOffTimeMs: 'mirrorflow retries a failed signing like a broker outage',
};

/**
 * `sasl.client.callback.handler.class` names Java code: only aws-msk-iam-auth's own handlers pass,
 * with the mechanism they belong to, as mirrorflow signs MSK IAM tokens itself.
 */
export function checkClientCallbackHandler(props: ReadonlyMap<string, Mm2Property>, mechanism: string, values: Mm2Values): void {
  const prop = props.get('sasl.client.callback.handler.class');
  if (prop === undefined) return;
  const value = values.isOpaque(prop) ? undefined : prop.value.trim();
  const login = props.get('sasl.login.callback.handler.class')?.value.trim();
  const fits =
    (mechanism === 'aws_msk_iam' && value === MSK_IAM_CLIENT_HANDLER) ||
    (mechanism === 'oauthbearer' && value === MSK_IAM_LOGIN_HANDLER && login === MSK_IAM_LOGIN_HANDLER);
  if (fits) return;
  values.report(
    prop,
    'custom Java classes cannot run in mirrorflow',
    `only AWS MSK IAM's handlers are read: ${MSK_IAM_CLIENT_HANDLER} with AWS_MSK_IAM, ${MSK_IAM_LOGIN_HANDLER} with OAUTHBEARER and the same login handler`,
  );
}

/**
 * AWS MSK IAM's JAAS options, from `IAMLoginModule` (AWS_MSK_IAM) or `OAuthBearerLoginModule`
 * (OAUTHBEARER with IAMOAuthBearerLoginCallbackHandler): the profile, or the role and its session
 * name. No option: AWS's default credential chain. The region is not a JAAS option: AWS's handler
 * reads it from the bootstrap host names, as mirrorflow does (or from `AWS_REGION`).
 */
export function mapMskIam(jaasProp: Mm2Property, options: ReadonlyMap<string, string>, values: Mm2Values, set: Setter): void {
  for (const [option, value] of options) {
    const field = MSK_IAM_OPTIONS[option];
    const noEffect = MSK_IAM_NO_EFFECT[option];
    if (field !== undefined) set(['security', 'sasl', field], value, jaasProp);
    else if (noEffect !== undefined) values.warn(jaasProp, `login option "${option}" has no effect: ${noEffect}`);
    else values.report(jaasProp, `login option "${option}" is not supported yet`, `mirrorflow reads ${Object.keys(MSK_IAM_OPTIONS).join(', ')}`);
  }
}
