import proxyAddr from "proxy-addr";
import type { TrustProxyConfig } from "../../contracts/config.js";
import type { IncomingHeaders } from "../../contracts/context.js";

/** Whether the address at `hop` (0 = the socket peer) is a proxy whose `X-Forwarded-For` entry is believed. */
export type TrustFunction = (address: string, hop: number) => boolean;

const trustNothing: TrustFunction = () => false;

/**
 * `config.trustProxy` as proxy-addr's trust function. `true` means one hop (a proxy you
 * control in front): unlike Express' `true`, Conduit never believes the leftmost entry,
 * which the client writes itself. Throws on an address or CIDR that does not parse.
 *
 * @example
 * compileTrustProxy(["loopback", "10.0.0.0/8"])("10.1.2.3", 0); // true
 */
export function compileTrustProxy(trust: TrustProxyConfig | undefined): TrustFunction {
  if (trust === undefined || trust === false || trust === 0) return trustNothing;
  if (trust === true) return (_address, hop) => hop < 1;
  if (typeof trust === "number") return (_address, hop) => hop < trust;
  if (typeof trust === "function") return trust;
  const list =
    typeof trust === "string"
      ? trust
          .split(",")
          .map((entry) => entry.trim())
          .filter(Boolean)
      : trust;
  return proxyAddr.compile(list);
}

/**
 * The client's address: the socket peer, or — walking `X-Forwarded-For` from the right while
 * each hop is a trusted proxy — the first address that is not (proxy-addr semantics). The one
 * rule for logging, rate limiting, auth and the WebSocket upgrade.
 *
 * @example
 * resolveClientAddress("10.0.0.2", { "x-forwarded-for": "6.6.6.6, 203.0.113.7" }, compileTrustProxy(1)); // "203.0.113.7"
 */
export function resolveClientAddress(peerAddress: string, headers: IncomingHeaders, trust: TrustFunction): string {
  if (trust === trustNothing || peerAddress === "") return peerAddress;
  const forwarded = headers["x-forwarded-for"];
  if (forwarded === undefined) return peerAddress;
  const request = {
    socket: { remoteAddress: peerAddress },
    headers: { "x-forwarded-for": Array.isArray(forwarded) ? forwarded.join(", ") : forwarded },
  };
  try {
    return proxyAddr(request as never, trust);
  } catch {
    // A user's trust function that throws trusts nothing.
    return peerAddress;
  }
}

// Compiled at the first call, not at import: compiling parses its ranges with ipaddr.js, the larger
// part of what importing this module costs, and only the dev playground's check asks.
let loopback: TrustFunction | undefined;

/**
 * True for 127.0.0.0/8, ::1 and IPv4-mapped loopback (`::ffff:127.0.0.1`).
 *
 * @example
 * isLoopbackAddress("::ffff:127.0.0.1"); // true
 */
export function isLoopbackAddress(address: string): boolean {
  try {
    if (address === "") return false;
    loopback ??= proxyAddr.compile("loopback");
    return loopback(address, 0);
  } catch {
    return false;
  }
}
