import { canonicalizeHostname } from "./hostname.ts";

/**
 * True when the hostname is an IP address literal rather than a domain name: IPv4 (`192.168.0.1`) or IPv6,
 * bracketed (`[::1]`, as `URL.hostname` gives it) or bare (`::1`).
 *
 * The hostname is first read the way a browser reads it (`canonicalizeHostname`), so IPv4 shorthands that a
 * browser would connect to as an IP address count as well: `127.1`, `0x7f.0.0.1`, `2130706433`. A name such as
 * `127.0.0.1.nip.io` is a domain name, even though it resolves to an IP address.
 */
export function isIpAddress(hostname: string): boolean {
  const canonical = canonicalizeHostname(hostname);
  if (canonical === null) return false;
  // The URL parser only accepts brackets around a valid IPv6 address.
  if (canonical.startsWith("[")) return true;
  // The URL parser turns every hostname that ends in a number into dotted-decimal IPv4, or refuses it.
  return /^[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(canonical);
}
