export * from './dns/index.js';
export * from './http/index.js';
export * from './smtp/index.js';
