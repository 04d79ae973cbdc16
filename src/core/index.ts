export * from './record';
export * from './errors';
export * from './cluster';
export * from './ports';
export * from './retry';
