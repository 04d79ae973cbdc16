import { isPlainObject } from './config-path';

/**
 * A flow as written, laid over `flow_defaults`: maps merge key by key, everything else (lists
 * included) is replaced by the flow's value. Works on unvalidated data and never mutates it.
 */
export function mergeFlowDefaults(defaults: unknown, flow: unknown): unknown {
  if (!isPlainObject(defaults) || !isPlainObject(flow)) return flow;
  return mergeMaps(defaults, flow);
}

function mergeMaps(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  // A map with a different `type` is a different kind of thing (replication_policy default vs
  // identity): merging would hand identity the default policy's keys, which it rejects.
  if ('type' in base && 'type' in over && base['type'] !== over['type']) return over;
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    const under = merged[key];
    merged[key] = isPlainObject(under) && isPlainObject(value) ? mergeMaps(under, value) : value;
  }
  return merged;
}
