/**
 * Where the caller is, as a trusted reverse proxy says (PROTOCOL-EXTRA §8.10): Vercel's `x-vercel-ip-country`,
 * `-country-region`, `-city`, `-latitude`, `-longitude` and `-timezone`, or Cloudflare's `cf-ipcountry` (country
 * only). Anyone can send these headers, so they are read only when GATEHOUSE_TRUST_PROXY says a proxy stands in
 * front, and with a list of proxy addresses only when the request came from one of them. As on the reference, only
 * browsers' requests (a `user-agent` naming Mozilla, Chrome or Safari) carry a location: an SDK on a server would
 * otherwise give its own data centre's.
 *
 * The middleware keeps the answer for the rest of the request, where the sign-up country, session locations and
 * activity events read it (`requestGeo`); without it they fall back to the bundled GeoIP country of the address.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import type { Context, MiddlewareHandler } from "hono";
import type { EndUserGeo } from "../net/ip-info.ts";
import { isTrustedProxyPeer, type ProxyTrust, socketAddress } from "./client-ip.ts";

const geoOfRequest = new AsyncLocalStorage<EndUserGeo | null>();

const BROWSER = /Mozilla|Chrome|Safari/;
/** ISO 3166-1 alpha-2; Cloudflare's `XX` (unknown) and `T1` (Tor) are no country. */
const COUNTRY = /^[A-Z]{2}$/;
const REGION = /^[A-Z0-9]{1,3}$/;
const TIME_ZONE = /^[A-Za-z0-9_+\-/]{1,64}$/;

function header(c: Context, name: string): string | null {
  const value = c.req.header(name)?.trim();
  return value ? value : null;
}

function coordinate(value: string | null, limit: number): number | null {
  if (value === null || !/^-?\d{1,3}(\.\d+)?$/.test(value)) return null;
  const number = Number(value);
  return Math.abs(number) <= limit ? number : null;
}

/** Vercel sends the city percent-encoded (`S%C3%A3o%20Paulo`). */
function cityName(value: string | null): string | null {
  if (value === null) return null;
  let decoded: string;
  try {
    decoded = decodeURIComponent(value);
  } catch {
    return null;
  }
  // Text for people, kept short and free of control characters.
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  return decoded.length <= 100 && !/[\u0000-\u001f\u007f]/.test(decoded) ? decoded : null;
}

/** The location the request's trusted headers give, or null (no proxy trusted, not a browser, no headers). */
export function trustedGeo(c: Context, trust: ProxyTrust | null): EndUserGeo | null {
  if (!trust || !BROWSER.test(c.req.header("user-agent") ?? "")) return null;
  if ("proxies" in trust && !isTrustedProxyPeer(trust, socketAddress(c))) return null;
  const vercelCountry = header(c, "x-vercel-ip-country")?.toUpperCase() ?? null;
  const cloudflareCountry = header(c, "cf-ipcountry")?.toUpperCase() ?? null;
  const countryCode = [vercelCountry, cloudflareCountry].find(
    (code) => code && COUNTRY.test(code) && code !== "XX",
  );
  if (!countryCode) return null;
  // The companions are Vercel's: they describe the place its country header names.
  const fromVercel = countryCode === vercelCountry;
  const region = fromVercel ? (header(c, "x-vercel-ip-country-region")?.toUpperCase() ?? null) : null;
  const timeZone = fromVercel ? header(c, "x-vercel-ip-timezone") : null;
  return {
    countryCode,
    regionCode: region && REGION.test(region) ? region : null,
    cityName: fromVercel ? cityName(header(c, "x-vercel-ip-city")) : null,
    latitude: fromVercel ? coordinate(header(c, "x-vercel-ip-latitude"), 90) : null,
    longitude: fromVercel ? coordinate(header(c, "x-vercel-ip-longitude"), 180) : null,
    tzIdentifier: timeZone && TIME_ZONE.test(timeZone) ? timeZone : null,
  };
}

export function clientGeoMiddleware(env: { trustProxy: ProxyTrust | null }): MiddlewareHandler {
  return (c, next) => geoOfRequest.run(trustedGeo(c, env.trustProxy), next);
}

/** The current request's trusted location (see above); null outside a request or without one. */
export function requestGeo(): EndUserGeo | null {
  return geoOfRequest.getStore() ?? null;
}
