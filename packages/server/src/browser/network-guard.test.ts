import { describe, expect, it } from "vitest";
import { isPrivateAddress, privateNetworkReason } from "./network-guard.js";

describe("isPrivateAddress", () => {
  it("flags loopback, private, link-local, CGNAT, metadata and mapped addresses; passes public ones", () => {
    for (const ip of ["127.0.0.1", "127.8.9.10", "10.1.2.3", "172.16.0.1", "172.31.255.255", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0", "224.0.0.1", "::1", "::", "fe80::1", "fd00::5", "::ffff:127.0.0.1", "::ffff:7f00:1", "64:ff9b::a00:1", "[::1]"]) {
      expect(isPrivateAddress(ip), ip).toBe(true);
    }
    for (const ip of ["8.8.8.8", "93.184.216.34", "172.32.0.1", "2606:4700:4700::1111", "::ffff:8.8.8.8"]) {
      expect(isPrivateAddress(ip), ip).toBe(false);
    }
  });
});

describe("privateNetworkReason", () => {
  const dns: Record<string, string[]> = { "intranet.example": ["10.0.0.5"], "public.example": ["93.184.216.34"], "mixed.example": ["93.184.216.34", "127.0.0.1"] };
  const resolve = async (host: string) => {
    const found = dns[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return found;
  };

  it("refuses literal private addresses, localhost names, names resolving inside, and names that don't resolve", async () => {
    expect(await privateNetworkReason("http://127.0.0.1:8787/apis/request/health", resolve)).toMatch(/127\.0\.0\.1/);
    expect(await privateNetworkReason("http://[::1]/", resolve)).toMatch(/::1/);
    expect(await privateNetworkReason("http://localhost:3000/", resolve)).toMatch(/own machine/);
    expect(await privateNetworkReason("http://app.localhost/", resolve)).toMatch(/own machine/);
    expect(await privateNetworkReason("https://intranet.example/admin", resolve)).toMatch(/resolves to 10\.0\.0\.5/);
    expect(await privateNetworkReason("https://mixed.example/", resolve)).toMatch(/127\.0\.0\.1/);
    expect(await privateNetworkReason("wss://intranet.example/socket", resolve)).toMatch(/10\.0\.0\.5/);
    expect(await privateNetworkReason("http://nowhere.example/", resolve)).toMatch(/does not resolve/);
    expect(await privateNetworkReason("http://169.254.169.254/latest/meta-data/", resolve)).toBeDefined();
  });

  it("lets public hosts and connection-less schemes through", async () => {
    expect(await privateNetworkReason("https://public.example/page", resolve)).toBeUndefined();
    expect(await privateNetworkReason("http://93.184.216.34/", resolve)).toBeUndefined();
    expect(await privateNetworkReason("data:text/html,hi", resolve)).toBeUndefined();
    expect(await privateNetworkReason("about:blank", resolve)).toBeUndefined();
  });
});
