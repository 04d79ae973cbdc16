import { parsePipeline, type FlowConfig } from '../../../config';

/**
 * For specs: the flow `primary -> backup` of a pipeline named `house`, with `settings` (YAML of
 * its keys, in flow style) over the defaults, validated as a pipeline file is.
 */
export function flowWith(settings = ''): FlowConfig {
  return parsePipeline(
    `
name: house
clusters:
  primary: { bootstrap_servers: [a:9092] }
  backup: { bootstrap_servers: [b:9092] }
flows:
  - { source: primary, target: backup${settings === '' ? '' : `, ${settings}`} }
`,
    'pipeline.yaml',
  ).flows[0]!;
}
