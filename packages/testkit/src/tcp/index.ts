export { type BlackholePort, closedPort, startBlackholePort, startSilentPort } from './ports.js';
