/**
 * `blockPrivateNetworks`: keeps a session's browser context off loopback, private, link-local and
 * other non-public addresses. Every HTTP(S) request the context makes (navigations, redirect hops,
 * links, frames, subresources, fetches) and every WebSocket passes a route that resolves the host
 * and aborts when any of its addresses is not public; service workers are blocked so none can
 * bypass the route. What it can't see (DNS rebinding between this check and the browser's own
 * lookup, WebRTC, a proxy's own reach) is for network rules; see docs/server/security.md.
 */
import { lookup } from "node:dns/promises";
import { BlockList, isIP } from "node:net";
import type { BrowserContext } from "playwright-core";

/** IPv4 ranges that are not public (RFC 6890 special-purpose, loopback, private, link-local, CGNAT, multicast, reserved). */
const IPV4_RANGES: ReadonlyArray<[string, number]> = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];

/** IPv6 ranges that are not public (unspecified, loopback, unique local, link-local, site-local, multicast, documentation). */
const IPV6_RANGES: ReadonlyArray<[string, number]> = [
  ["::", 128],
  ["::1", 128],
  ["fc00::", 7],
  ["fe80::", 10],
  ["fec0::", 10],
  ["ff00::", 8],
  ["2001:db8::", 32],
  ["100::", 64],
];

const blocked = new BlockList();
for (const [net, prefix] of IPV4_RANGES) blocked.addSubnet(net, prefix, "ipv4");
for (const [net, prefix] of IPV6_RANGES) blocked.addSubnet(net, prefix, "ipv6");

/** True when `address` (an IPv4 or IPv6 literal) is loopback, private, link-local or otherwise not public. */
export function isPrivateAddress(address: string): boolean {
  const ip = address.replace(/^\[|\]$/g, "").replace(/%.*$/, "");
  const family = isIP(ip);
  if (family === 4) return blocked.check(ip, "ipv4");
  if (family !== 6) return true;
  const embedded = embeddedIpv4(ip);
  if (embedded !== undefined) return blocked.check(embedded, "ipv4");
  return blocked.check(ip, "ipv6");
}

/** The IPv4 address inside an IPv4-mapped (`::ffff:a.b.c.d`), IPv4-compatible or NAT64 (`64:ff9b::/96`) IPv6 address. */
function embeddedIpv4(ip: string): string | undefined {
  const lower = ip.toLowerCase();
  const dotted = /^(?:::ffff:|::|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (hex) {
    const high = parseInt(hex[1]!, 16);
    const low = parseInt(hex[2]!, 16);
    return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
  }
  return undefined;
}

/**
 * Why a URL may not be opened, or undefined when it may: its host is (or resolves to) a non-public
 * address, is a `localhost` name, or does not resolve. Only `http(s):` and `ws(s):` are checked;
 * other schemes (`data:`, `blob:`, `about:`) open no connection, and `file:` has its own option.
 */
export async function privateNetworkReason(url: string, resolve: (host: string) => Promise<string[]> = resolveAll): Promise<string | undefined> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  if (!["http:", "https:", "ws:", "wss:"].includes(parsed.protocol)) return undefined;
  const host = parsed.hostname.replace(/^\[|\]$/g, "").replace(/\.$/, "").toLowerCase();
  if (host === "localhost" || host.endsWith(".localhost")) return `${host} is the server's own machine`;
  if (isIP(host)) return isPrivateAddress(host) ? `${host} is a loopback, private or link-local address` : undefined;
  let addresses: string[];
  try {
    addresses = await resolve(host);
  } catch {
    return `${host} does not resolve from the server, so its address can't be checked`;
  }
  const inside = addresses.find(isPrivateAddress);
  return inside ? `${host} resolves to ${inside}, a loopback, private or link-local address` : undefined;
}

async function resolveAll(host: string): Promise<string[]> {
  return (await lookup(host, { all: true, verbatim: true })).map((a) => a.address);
}

/**
 * Installs the guard on a browser context: HTTP(S) requests to non-public addresses are aborted
 * (`net::ERR_BLOCKED_BY_CLIENT`), such WebSockets are closed (code 1008). Call before the context
 * opens anything. Create the context with `serviceWorkers: "block"`.
 */
export async function blockPrivateNetworkRequests(context: BrowserContext): Promise<void> {
  await context.route("**/*", async (route) => {
    const reason = await privateNetworkReason(route.request().url());
    if (reason) await route.abort("blockedbyclient").catch(() => undefined);
    else await route.fallback().catch(() => undefined);
  });
  await context.routeWebSocket(/.*/, async (ws) => {
    const reason = await privateNetworkReason(ws.url());
    if (reason) await ws.close({ code: 1008, reason: `blocked by the wf server (blockPrivateNetworks): ${reason}`.slice(0, 120) });
    else ws.connectToServer();
  });
}
