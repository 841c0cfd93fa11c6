/**
 * The SSRF guard of webhook endpoints. An owner's endpoint URL makes this server send requests; in production it
 * must not reach what only the server can reach: loopback, private networks, link-local (cloud metadata at
 * 169.254.169.254), unique-local, CGNAT, unspecified, multicast and reserved addresses, in IPv4 and IPv6, including
 * IPv4 inside IPv6 (mapped `::ffff:a.b.c.d`, compatible, NAT64 `64:ff9b::/96`, 6to4 `2002::/16`).
 *
 * Checked twice: when an endpoint is saved (a clear 400), and at every delivery, on the addresses the connection
 * actually uses (the `lookup` hook of the request), since DNS can change after the check (DNS rebinding).
 * Development allows every address, so local receivers and tests work.
 */
import { lookup as dnsLookup, type LookupAddress } from "node:dns";
import { isIP } from "node:net";

type Range = { bytes: number[]; bits: number; name: string };

const v4 = (cidr: string, name: string): Range => {
  const [address, bits] = cidr.split("/") as [string, string];
  return { bytes: address.split(".").map(Number), bits: Number(bits), name };
};

const BLOCKED_V4: Range[] = [
  v4("0.0.0.0/8", "unspecified"),
  v4("10.0.0.0/8", "private"),
  v4("100.64.0.0/10", "carrier-grade NAT"),
  v4("127.0.0.0/8", "loopback"),
  v4("169.254.0.0/16", "link-local"),
  v4("172.16.0.0/12", "private"),
  v4("192.0.0.0/24", "reserved"),
  v4("192.168.0.0/16", "private"),
  v4("198.18.0.0/15", "reserved"),
  v4("224.0.0.0/4", "multicast"),
  v4("240.0.0.0/4", "reserved"),
];

const v6 = (prefix: number[], bits: number, name: string): Range => ({ bytes: prefix, bits, name });

const BLOCKED_V6: Range[] = [
  v6([0xfc], 7, "unique-local"),
  v6([0xfe, 0x80], 10, "link-local"),
  v6([0xfe, 0xc0], 10, "site-local"),
  v6([0xff], 8, "multicast"),
];

function inRange(bytes: readonly number[], range: Range): boolean {
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if (((bytes[i] ?? 0) & mask) !== ((range.bytes[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** 16 bytes of an IPv6 address in any spelling (`::`, a dotted IPv4 tail, a zone id). */
export function ipv6Bytes(address: string): number[] {
  // A dotted IPv4 tail (`::ffff:1.2.3.4`) becomes two hex groups (`::ffff:102:304`).
  const text = address
    .split("%")[0]!
    .replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
      [((Number(a) << 8) | Number(b)).toString(16), ((Number(c) << 8) | Number(d)).toString(16)].join(":"),
    );
  const parse = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const [head, rest] = text.includes("::") ? (text.split("::") as [string, string]) : [text, undefined];
  const headGroups = parse(head);
  const restGroups = rest === undefined ? [] : parse(rest);
  const fill = rest === undefined ? 0 : 8 - headGroups.length - restGroups.length;
  const groups = [...headGroups, ...Array<number>(Math.max(0, fill)).fill(0), ...restGroups];
  return groups.flatMap((group) => [(group >> 8) & 0xff, group & 0xff]);
}

/** Why an address may not be reached from production, or null when it may. */
export function blockedAddressReason(address: string): string | null {
  const family = isIP(address.split("%")[0]!);
  if (family === 4) {
    const bytes = address.split(".").map(Number);
    if (bytes.every((b) => b === 255)) return "broadcast";
    return BLOCKED_V4.find((range) => inRange(bytes, range))?.name ?? null;
  }
  if (family !== 6) return "not an IP address";
  const bytes = ipv6Bytes(address);
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((b) => b === 0);
  if (zeros(0, 16)) return "unspecified";
  if (zeros(0, 15) && bytes[15] === 1) return "loopback";
  const embedded = (offset: number) => bytes.slice(offset, offset + 4).join(".");
  // IPv4-mapped (::ffff:a.b.c.d), IPv4-compatible (::a.b.c.d), NAT64 (64:ff9b::a.b.c.d): judged as the IPv4 inside.
  if (zeros(0, 10) && ((bytes[10] === 0xff && bytes[11] === 0xff) || zeros(10, 12))) {
    return blockedAddressReason(embedded(12));
  }
  if (inRange(bytes, v6([0x00, 0x64, 0xff, 0x9b], 96, "NAT64"))) return blockedAddressReason(embedded(12));
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return blockedAddressReason(embedded(2));
  return BLOCKED_V6.find((range) => inRange(bytes, range))?.name ?? null;
}

export type UrlCheck = { ok: true } | { ok: false; reason: string };

const PROTOCOLS = new Set(["http:", "https:"]);

/** The URL's host without IPv6 brackets. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

function lookupAll(host: string): Promise<LookupAddress[]> {
  return new Promise((resolve, reject) =>
    dnsLookup(host, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );
}

function describe(host: string, address: string, reason: string): string {
  return host === address
    ? `${address} is a ${reason} address`
    : `${host} resolves to ${address}, a ${reason} address`;
}

/**
 * Whether deliveries from this server go through the guard: in production, unless the operator allowed private
 * addresses (`GATEHOUSE_WEBHOOK_PRIVATE_ADDRESSES=allow`, for receivers inside their own network).
 */
export function webhookAddressesGuarded(env: {
  isDevelopment: boolean;
  webhooksToPrivateAddresses?: boolean;
}) {
  return !env.isDevelopment && !env.webhooksToPrivateAddresses;
}

/**
 * Whether this server may send to `rawUrl`: http(s) always; in production, a host whose every address is public.
 * Used when an endpoint is saved; delivery checks again on the connection's own lookup (`guardedLookup`).
 */
export async function checkEndpointUrl(allowEveryAddress: boolean, rawUrl: string): Promise<UrlCheck> {
  let url: URL;
  try {
    url = new URL(rawUrl);
  } catch {
    return { ok: false, reason: "The endpoint URL is not a valid URL." };
  }
  if (!PROTOCOLS.has(url.protocol)) return { ok: false, reason: "The endpoint URL must use http or https." };
  if (url.username || url.password) {
    return { ok: false, reason: "The endpoint URL must not contain a user name or password." };
  }
  if (allowEveryAddress) return { ok: true };
  const host = hostOf(url);
  let addresses: string[];
  if (isIP(host)) addresses = [host];
  else {
    try {
      addresses = (await lookupAll(host)).map((entry) => entry.address);
    } catch {
      return { ok: false, reason: `The endpoint's host ${host} could not be resolved.` };
    }
  }
  for (const address of addresses) {
    const reason = blockedAddressReason(address);
    if (reason) {
      return {
        ok: false,
        reason: `Webhook endpoints must be publicly reachable: ${describe(host, address, reason)}.`,
      };
    }
  }
  return addresses.length > 0
    ? { ok: true }
    : { ok: false, reason: `The endpoint's host ${host} has no address.` };
}

/** Thrown (through the request) when a delivery's connection would reach a blocked address. */
export class BlockedAddressError extends Error {
  override readonly name = "BlockedAddressError";
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;

/**
 * A `lookup` for http(s).request that refuses blocked addresses: the check happens on the very addresses the
 * socket connects to. IP-literal hosts skip `lookup` in Node, so `assertLiteralHostAllowed` covers them.
 */
export function guardedLookup(
  hostname: string,
  options: { all?: boolean; family?: number },
  callback: LookupCallback,
) {
  dnsLookup(hostname, { all: true, verbatim: true, family: options.family ?? 0 }, (error, addresses) => {
    if (error) return callback(error, []);
    for (const entry of addresses) {
      const reason = blockedAddressReason(entry.address);
      if (reason) return callback(new BlockedAddressError(describe(hostname, entry.address, reason)), []);
    }
    if (options.all) return callback(null, addresses);
    const first = addresses[0];
    if (!first)
      return callback(Object.assign(new Error(`${hostname} has no address`), { code: "ENOTFOUND" }), []);
    return callback(null, first.address, first.family);
  });
}

/** For an IP-literal host: throws BlockedAddressError when it is blocked. */
export function assertLiteralHostAllowed(url: URL): void {
  const host = hostOf(url);
  if (!isIP(host)) return;
  const reason = blockedAddressReason(host);
  if (reason) throw new BlockedAddressError(describe(host, host, reason));
}
