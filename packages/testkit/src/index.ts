export * from './dns/index.js';
export * from './external/index.js';
export * from './http/index.js';
export { seededRandom } from './random/seeded.js';
export * from './smtp/index.js';
export * from './socks5/index.js';
export * from './tcp/index.js';
