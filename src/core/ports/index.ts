export * from './logger';
export * from './cluster-admin';
export * from './topic-acl';
export * from './record-writer';
export * from './record-source';
export * from './kafka-clients';
export * from './scheduler';
export * from './leader-election';
