import type { TopicConfigEntry } from '../core/ports/cluster-admin';

/** For specs: a config entry as a cluster describes it, set where `source` says (a topic's own by default). */
export const configEntry = (name: string, value: string, source: TopicConfigEntry['source'] = 'topic'): TopicConfigEntry => ({
  name,
  value,
  isDefault: source === 'default',
  readOnly: false,
  sensitive: false,
  source,
});
