/**
 * IncrementalAlterConfigs (API key 44; KIP-339, Kafka 2.3+), which kafkajs does not have: its
 * `alterConfigs` is the older whole-resource AlterConfigs, which resets every override of a topic
 * that the request does not name. mirrorflow sends v0 through a kafkajs broker connection. v0 is
 * not flexible (request header v1) and every broker from 2.3 to 4.3 accepts it (4.3.1 supports
 * v0–v1; Kafka 4.0 removed no version of this API).
 *
 *   IncrementalAlterConfigs Request (v0) => [resources] validate_only
 *     resources => resource_type INT8 | resource_name STRING | [configs]
 *       configs => name STRING | config_operation INT8 | value NULLABLE_STRING
 *     validate_only => BOOLEAN
 *
 *   IncrementalAlterConfigs Response (v0) => throttle_time_ms [responses]
 *     throttle_time_ms => INT32
 *     responses => error_code INT16 | error_message NULLABLE_STRING | resource_type INT8 | resource_name STRING
 *
 * Arrays are an INT32 count; STRING an INT16 byte length then UTF-8 (NULLABLE: -1 = null). The
 * broker applies each resource's operations together or not at all, and answers per resource.
 */
import { CompactWriter } from './compact-codec';

export const INCREMENTAL_ALTER_CONFIGS_API_KEY = 44;
export const INCREMENTAL_ALTER_CONFIGS_V0 = 0;

/** Kafka's ConfigResource.Type code for a topic. */
export const TOPIC_RESOURCE = 2;
/** Kafka's ConfigResource.Type code for a group (Kafka 4.0+). */
export const GROUP_RESOURCE = 32;

/** Kafka's AlterConfigOp.OpType codes. */
export const CONFIG_OPERATION = { set: 0, delete: 1, append: 2, subtract: 3 } as const;

export interface AlterableConfig {
  readonly name: string;
  readonly operation: keyof typeof CONFIG_OPERATION;
  readonly value: string | null;
}

export interface AlterConfigsResource {
  readonly resourceType: number;
  readonly resourceName: string;
  readonly configs: readonly AlterableConfig[];
}

export interface AlterConfigsResourceResponse {
  readonly errorCode: number;
  readonly errorMessage: string | null;
  readonly resourceType: number;
  readonly resourceName: string;
}

export interface IncrementalAlterConfigsResponse {
  readonly throttleTimeMs: number;
  readonly responses: readonly AlterConfigsResourceResponse[];
}

/** The v0 request body. */
export function encodeIncrementalAlterConfigsV0(resources: readonly AlterConfigsResource[], validateOnly = false): Buffer {
  const w = new CompactWriter().int32(resources.length);
  for (const resource of resources) {
    w.int8(resource.resourceType).string(resource.resourceName).int32(resource.configs.length);
    for (const config of resource.configs) w.string(config.name).int8(CONFIG_OPERATION[config.operation]).string(config.value);
  }
  return w.int8(validateOnly ? 1 : 0).build();
}

/** Decodes the v0 response body (what kafkajs's connection hands over after the correlation id). */
export function decodeIncrementalAlterConfigsV0(payload: Buffer): IncrementalAlterConfigsResponse {
  let offset = 0;
  const take = (length: number): number => {
    if (offset + length > payload.length) {
      throw new RangeError(`IncrementalAlterConfigs response ends at byte ${payload.length}; ${length} more needed at ${offset}`);
    }
    const at = offset;
    offset += length;
    return at;
  };
  const string = (): string | null => {
    const length = payload.readInt16BE(take(2));
    if (length < 0) return null;
    const at = take(length);
    return payload.toString('utf8', at, at + length);
  };
  const throttleTimeMs = payload.readInt32BE(take(4));
  const count = payload.readInt32BE(take(4));
  const responses: AlterConfigsResourceResponse[] = [];
  for (let i = 0; i < count; i++) {
    const errorCode = payload.readInt16BE(take(2));
    const errorMessage = string();
    const resourceType = payload.readInt8(take(1));
    const resourceName = string() ?? '';
    responses.push({ errorCode, errorMessage, resourceType, resourceName });
  }
  return { throttleTimeMs, responses };
}

/** A request/response pair in kafkajs's shape, for a kafkajs broker connection's `send`. */
export function incrementalAlterConfigsRequest(resources: readonly AlterConfigsResource[]) {
  return {
    request: {
      apiKey: INCREMENTAL_ALTER_CONFIGS_API_KEY,
      apiVersion: INCREMENTAL_ALTER_CONFIGS_V0,
      apiName: 'IncrementalAlterConfigs',
      encode: async (): Promise<{ readonly buffer: Buffer }> => ({ buffer: encodeIncrementalAlterConfigsV0(resources) }),
    },
    response: {
      decode: async (payload: Buffer): Promise<IncrementalAlterConfigsResponse> => decodeIncrementalAlterConfigsV0(payload),
      parse: async (response: IncrementalAlterConfigsResponse): Promise<IncrementalAlterConfigsResponse> => response,
    },
  };
}
