/**
 * Where an IP address is, from the GeoLite2 country database that the `geoip-country` package ships (about 8 MB,
 * read into memory on the first lookup, ~25 ms; IPv4 and IPv6; no network at run time). Country only: the city
 * database of geoip-lite is twenty times larger, and metrics and session lists only show countries, so region,
 * city, coordinates and time zone stay null unless a trusted proxy gave them (http/client-geo.ts).
 */
import { createRequire } from "node:module";
import { isIP } from "node:net";

type GeoIpCountry = { lookup: (ip: string) => { country?: string } | null };

let database: GeoIpCountry | null = null;

function geoIp(): GeoIpCountry {
  // A CommonJS package that reads its data files at require time: loaded when first needed, not on import.
  database ??= createRequire(import.meta.url)("geoip-country") as GeoIpCountry;
  return database;
}

/** `::ffff:81.2.69.142` (an IPv4 peer on a dual-stack socket) is looked up as 81.2.69.142. */
function plain(ip: string): string {
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(ip) ? ip.slice(7) : ip;
}

/**
 * Countries of the addresses seen lately. Every token refresh looks its address up (its activity event carries the
 * country), and a lookup is a binary search of the whole table: about 1.5% of a refresh grant's CPU. A client
 * refreshes from the same address again and again, so remembered answers serve most of them. Bounded by dropping
 * everything when full, which costs one lookup per address afterwards: simpler than LRU order for a table this cheap
 * to refill.
 */
const recentCountries = new Map<string, string | null>();
const MAX_REMEMBERED_ADDRESSES = 10_000;

/** ISO 3166 alpha-2 country of an address; null for private, loopback and unknown addresses. */
export function countryOfIp(ip: string | null | undefined): string | null {
  if (!ip) return null;
  const remembered = recentCountries.get(ip);
  if (remembered !== undefined) return remembered;
  const address = plain(ip);
  // Only addresses are remembered (at most 45 characters each), never whatever else a header carried.
  if (isIP(address) === 0) return null;
  const found = geoIp().lookup(address)?.country;
  const country = found && /^[A-Z]{2}$/.test(found) ? found : null;
  if (recentCountries.size >= MAX_REMEMBERED_ADDRESSES) recentCountries.clear();
  recentCountries.set(ip, country);
  return country;
}

/** Where a caller is, as a trusted proxy's headers say (http/client-geo.ts), in the protocol's camelCase. */
export type EndUserGeo = {
  countryCode: string;
  regionCode: string | null;
  cityName: string | null;
  latitude: number | null;
  longitude: number | null;
  tzIdentifier: string | null;
};

/**
 * A session's `last_used_at_end_user_ip_info` (PROTOCOL.md §3.7, camelCase keys as the protocol has them): what a
 * trusted proxy said when the session was last used from this address, else the country of the address.
 */
export function endUserIpInfo(ip: string, geo: EndUserGeo | null = null) {
  if (geo) return { ip, ...geo };
  return {
    ip,
    countryCode: countryOfIp(ip),
    regionCode: null,
    cityName: null,
    latitude: null,
    longitude: null,
    tzIdentifier: null,
  };
}
