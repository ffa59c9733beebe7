export { SOCKS5_FAILURE_MODES, type Socks5FailureMode, type Socks5ProxyOptions } from './options.js';
export {
  type Socks5ConnectionRecord,
  type Socks5Outcome,
  type Socks5Proxy,
  startSocks5Proxy,
} from './server.js';
