/**
 * The AWS region an MSK IAM token is signed for, chosen as AWS's clients choose it: the one the
 * pipeline names, else the one in the brokers' host names (MSK's are
 * `b-1.<cluster>.<id>.c2.kafka.<region>.amazonaws.com`, also `….kafka-serverless.…` and the
 * `.amazonaws.com.cn` partition), else `AWS_REGION`. Undefined when none says.
 */

const MSK_HOST = /\.kafka(?:-serverless)?\.([a-z]{2}(?:-[a-z]+)+-\d+)\.amazonaws\.com(?:\.cn)?$/i;

export type MskIamRegion = { readonly region: string; readonly from: 'sasl.region' | 'bootstrap_servers' | 'AWS_REGION' } | undefined;

export function mskIamRegion(explicit: string | undefined, bootstrapServers: readonly string[], env: NodeJS.ProcessEnv = process.env): MskIamRegion {
  if (explicit !== undefined && explicit !== '') return { region: explicit, from: 'sasl.region' };
  for (const server of bootstrapServers) {
    const host = server.replace(/:\d+$/, '');
    const found = MSK_HOST.exec(host)?.[1];
    if (found !== undefined) return { region: found.toLowerCase(), from: 'bootstrap_servers' };
  }
  const fromEnv = env['AWS_REGION']?.trim();
  return fromEnv !== undefined && fromEnv !== '' ? { region: fromEnv, from: 'AWS_REGION' } : undefined;
}
