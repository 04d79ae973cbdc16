import type { TopicAcl } from '../../core/ports/topic-acl';

/** For specs: `ALLOW User:alice READ` on the literal topic `orders` from any host, with `over` applied. */
export const topicAcl = (over: Partial<TopicAcl> = {}): TopicAcl => ({
  name: 'orders',
  patternType: 'LITERAL',
  principal: 'User:alice',
  host: '*',
  operation: 'READ',
  permission: 'ALLOW',
  ...over,
});
