import { canonicalizeHostname } from "./hostname.ts";

/**
 * True when the hostname names the user's own machine:
 * - `localhost`, and any subdomain of it (`app.localhost`, `a.b.localhost`): RFC 6761 reserves these for
 *   loopback and browsers resolve them to it without asking DNS;
 * - the IPv4 loopback range `127.0.0.0/8` (`127.x.x.x`);
 * - the IPv6 loopback `[::1]` (bare `::1` too), and IPv4-mapped loopback (`[::ffff:127.0.0.1]`).
 *
 * The hostname is first read the way a browser reads it (`canonicalizeHostname`): case does not matter and IPv4
 * shorthands count (`127.1`, `0x7f.0.0.1`). Names that merely resolve to loopback through DNS, such as
 * `127.0.0.1.nip.io` or `localhost.example.com`, are NOT localhost: whoever controls that DNS decides. A
 * trailing dot (`localhost.`) is not accepted either; it is a different origin to the browser.
 */
export function isLocalhost(hostname: string): boolean {
  const canonical = canonicalizeHostname(hostname);
  if (canonical === null) return false;

  if (canonical === "localhost") return true;
  if (canonical.endsWith(".localhost")) {
    // Every label in front must be non-empty: ".localhost" or "a..localhost" are not real names.
    const labels = canonical.slice(0, -".localhost".length).split(".");
    return labels.every((label) => label.length > 0);
  }

  // Canonical IPv4 is always four dotted decimal numbers, each 0-255.
  if (/^127\.[0-9]{1,3}\.[0-9]{1,3}\.[0-9]{1,3}$/.test(canonical)) return true;

  // Canonical IPv6 is lowercase and compressed, so each address has exactly one spelling.
  if (canonical === "[::1]") return true;
  // ::ffff:127.x.y.z is serialised as ::ffff:7fxx:yyzz.
  return /^\[::ffff:7f[0-9a-f]{2}:[0-9a-f]{1,4}\]$/.test(canonical);
}
