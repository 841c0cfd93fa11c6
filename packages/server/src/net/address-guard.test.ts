import { describe, expect, it } from "vitest";
import { blockedAddressReason, checkEndpointUrl } from "./address-guard.ts";

describe("blockedAddressReason", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["0.0.0.0", "unspecified"],
    ["10.20.30.40", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.0.1", "private"],
    ["169.254.169.254", "link-local"],
    ["100.64.0.1", "carrier-grade NAT"],
    ["100.127.255.254", "carrier-grade NAT"],
    ["224.0.0.1", "multicast"],
    ["255.255.255.255", "broadcast"],
    ["::1", "loopback"],
    ["::", "unspecified"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["fe80::1%eth0", "link-local"],
    ["fc00::1", "unique-local"],
    ["fdff:ffff::1", "unique-local"],
    ["ff02::1", "multicast"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["0:0:0:0:0:ffff:a00:1", "private"],
    ["::ffff:169.254.169.254", "link-local"],
    ["::10.0.0.1", "private"],
    ["64:ff9b::192.168.0.1", "private"],
    ["2002:7f00:1::", "loopback"],
  ])("blocks %s (%s)", (address, reason) => {
    expect(blockedAddressReason(address)).toBe(reason);
  });

  it.each([
    "8.8.8.8",
    "93.184.215.14",
    "172.32.0.1",
    "100.128.0.1",
    "2606:4700::1111",
    "::ffff:8.8.8.8",
    "64:ff9b::808:808",
  ])("allows the public address %s", (address) => {
    expect(blockedAddressReason(address)).toBeNull();
  });
});

describe("checkEndpointUrl", () => {
  it("allows any http(s) URL in development, never another scheme or credentials in the URL", async () => {
    expect(await checkEndpointUrl(true, "http://127.0.0.1:3000/hook")).toEqual({ ok: true });
    expect((await checkEndpointUrl(true, "gopher://example.com/")).ok).toBe(false);
    expect((await checkEndpointUrl(true, "https://user:pass@example.com/")).ok).toBe(false);
  });

  it("in production resolves names and refuses when any address is blocked", async () => {
    const check = await checkEndpointUrl(false, "http://localhost:3000/hook");
    expect(check).toEqual({
      ok: false,
      reason: expect.stringMatching(
        /^Webhook endpoints must be publicly reachable: localhost resolves to .*, a loopback address\.$/,
      ),
    });
    expect(await checkEndpointUrl(false, "https://[2606:4700::1111]/hook")).toEqual({ ok: true });
  });
});
