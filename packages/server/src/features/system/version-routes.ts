/**
 * Two small routes the reference's SDKs and dashboard call (PROTOCOL-EXTRA §6.1-§6.2): whether a feature is
 * supported (never, by definition: the SDK only asks about features the server lacks) and whether a client SDK's
 * version fits the server's.
 */
import { z } from "zod";
import { textResponse } from "../../http/responses.ts";
import { defineRoute, routeGroup } from "../../http/route.ts";

const tags = ["System"];
const open = routeGroup({ tags, access: "public" });

/** The reference version whose protocol this server speaks; client SDKs are compared with it. */
export const PROTOCOL_VERSION = "2.8.86";
/** Older clients have a known security problem (the reference's notice). */
const OLDEST_SAFE_CLIENT = "2.8.57";

type Version = { major: number; minor: number; patch: number };

function parseVersion(text: string): Version | null {
  const match = /^v?(\d+)\.(\d+)\.(\d+)(?:[-+][0-9A-Za-z.-]+)?$/.exec(text.trim());
  if (!match) return null;
  return { major: Number(match[1]), minor: Number(match[2]), patch: Number(match[3]) };
}

function compare(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

export type VersionCheck = { upToDate: true } | { upToDate: false; error: string; severe: boolean };

/** The outcomes of PROTOCOL-EXTRA §6.2, in its order. */
export function checkClientVersion(clientVersion: string, serverVersion = PROTOCOL_VERSION): VersionCheck {
  const client = parseVersion(clientVersion);
  const server = parseVersion(serverVersion)!;
  if (!client) {
    return { upToDate: false, severe: true, error: `"${clientVersion}" is not a valid version number.` };
  }
  if (compare(client, parseVersion(OLDEST_SAFE_CLIENT)!) < 0) {
    return {
      upToDate: false,
      severe: true,
      error: `Client version ${clientVersion} has a known security issue; upgrade to ${serverVersion}.`,
    };
  }
  if (client.major !== server.major || client.minor !== server.minor) {
    return {
      upToDate: false,
      severe: true,
      error: `Client version ${clientVersion} does not match the server's ${serverVersion}; use ${server.major}.${server.minor}.x.`,
    };
  }
  if (client.patch < server.patch) {
    return {
      upToDate: false,
      severe: false,
      error: `Client version ${clientVersion} is older than the server's ${serverVersion}; consider upgrading.`,
    };
  }
  return { upToDate: true };
}

export const versionRoutes = [
  defineRoute({
    method: "POST",
    path: "/check-feature-support",
    summary: "Says that a feature the SDK asks about is not supported yet (plain text)",
    tags,
    // The SDK calls it with any credentials or none; it reads nothing of them.
    access: "public",
    request: { body: z.unknown().optional() },
    response: { raw: true, description: "200 text/plain: a sentence naming the feature" },
    handler: async ({ body }) => {
      const fields = (body && typeof body === "object" ? body : {}) as Record<string, unknown>;
      const name = [fields.feature_name, fields.featureName, fields.name].find(
        (value): value is string => typeof value === "string" && value.trim() !== "",
      );
      const subject = name ? `The feature "${name.slice(0, 200)}"` : "This feature";
      return textResponse(`${subject} is not supported yet by this Gatehouse server.`);
    },
  }),
  open.post("/check-version", {
    summary: "Whether a client SDK's version fits this server",
    request: { body: z.object({ clientVersion: z.string().max(100) }) },
    response: {
      body: z.union([
        z.object({ upToDate: z.literal(true) }),
        z.object({ upToDate: z.literal(false), error: z.string(), severe: z.boolean() }),
      ]),
    },
    handler: async ({ body }) => ({ body: checkClientVersion(body.clientVersion) }),
  }),
];
