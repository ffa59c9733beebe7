import type { GeoPartial } from '../backend.js';
import type { NetworkListFlag } from '../datasets.js';

/** What being listed, and not being listed, means for each kind of list. */
export interface NetworkListFlagMeaning {
  /** The fields every listed address gets. */
  listed: GeoPartial;
  /**
   * The fields an address that is not listed gets, when the list is complete for what it names
   * (every Tor exit, every Private Relay egress); empty when absence says nothing (a hosting list
   * covers a few providers, not every data centre).
   */
  unlisted: GeoPartial;
}

/**
 * The one place that says which flag a list sets (README: "Which source sets which flag").
 * `is_proxy` follows the spec and MaxMind's definition: public proxies, residential proxies and Tor
 * exits; hosting alone never makes an address a VPN or proxy, and a Private Relay egress is neither
 * (it keeps the user's region).
 */
export const NETWORK_LIST_FLAGS: Readonly<Record<NetworkListFlag, NetworkListFlagMeaning>> = {
  tor: { listed: { is_tor: true, is_proxy: true }, unlisted: { is_tor: false } },
  hosting: { listed: { is_hosting: true, network_type: 'hosting' }, unlisted: {} },
  relay: { listed: { is_relay: true }, unlisted: { is_relay: false } },
  vpn: { listed: { is_vpn: true }, unlisted: {} },
};
