import { describe, expect, it } from "vitest";
import { isIpAddress } from "./ip.ts";
import { isLocalhost } from "./localhost.ts";

describe("isLocalhost", () => {
  it.each([
    "localhost",
    "LOCALHOST",
    "LocalHost",
    "app.localhost",
    "a.b.localhost",
    "my-app.localhost",
    "127.0.0.1",
    "127.0.0.2",
    "127.1.2.3",
    "127.255.255.255",
    "127.1",
    "0x7f.0.0.1",
    "2130706433",
    "[::1]",
    "::1",
    "[0:0:0:0:0:0:0:1]",
    "[::ffff:127.0.0.1]",
    "[::ffff:127.255.0.9]",
  ])("%j is localhost", (hostname) => {
    expect(isLocalhost(hostname)).toBe(true);
  });

  it.each([
    "127.0.0.1.nip.io",
    "localhost.example.com",
    "localhost.",
    "notlocalhost",
    "mylocalhost",
    "localhost-app",
    "xlocalhost.com",
    ".localhost",
    "a..localhost",
    "128.0.0.1",
    "126.255.255.255",
    "10.0.0.1",
    "0.0.0.0",
    "1.127.0.0",
    "127.0.0.1:3000",
    "localhost:3000",
    "[::2]",
    "[::]",
    "[::ffff:128.0.0.1]",
    "[::ffff:10.0.0.1]",
    "127.0.0.256",
    "example.com",
    "",
    "http://localhost",
    "localhost/",
    "user@localhost",
    "local host",
  ])("%j is not localhost", (hostname) => {
    expect(isLocalhost(hostname)).toBe(false);
  });

  it("returns false for values that are not strings", () => {
    expect(isLocalhost(undefined as unknown as string)).toBe(false);
    expect(isLocalhost(null as unknown as string)).toBe(false);
  });
});

describe("isIpAddress", () => {
  it.each([
    "1.2.3.4",
    "0.0.0.0",
    "255.255.255.255",
    "127.0.0.1",
    "10.0.0.1",
    "127.1",
    "0x7f.0.0.1",
    "3232235521",
    "[::1]",
    "::1",
    "[2001:db8::1]",
    "2001:db8::1",
    "[::ffff:192.168.0.1]",
    "[fe80::1]",
  ])("%j is an IP address", (hostname) => {
    expect(isIpAddress(hostname)).toBe(true);
  });

  it.each([
    "example.com",
    "localhost",
    "127.0.0.1.nip.io",
    "1.2.3.4.example.com",
    "1.2.3.4.5",
    "256.0.0.1",
    "1.2.3.4:80",
    "[::1]:80",
    "[::g]",
    ":::",
    "example.123",
    "",
    "a.b.c.d",
  ])("%j is not an IP address", (hostname) => {
    expect(isIpAddress(hostname)).toBe(false);
  });
});
