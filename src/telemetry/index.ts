export { createLogger, type LoggerOptions } from './create-logger';
export { redactText, redactValue } from './redact';
export { HttpServer, parseListenAddress, type ListenAddress, type Route } from './http-server';
export { Metrics } from './metrics';
export { httpRoutes } from './http-routes';
export { describeOutages, flowLag, flowLagMs, flowName, partitionLagMs, type FlowSnapshot, type OutageSnapshot, type PartitionSnapshot } from './flow-snapshot';
export type { StatusDocument, FlowStatusDocument } from './status-document';
