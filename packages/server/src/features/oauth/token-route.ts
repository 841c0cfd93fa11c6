import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { jsonResponse } from "../../http/responses.ts";
import { defineRoute } from "../../http/route.ts";
import { refreshTokenGrant } from "../sessions/refresh-grant.ts";
import { authenticateOAuthClient } from "./client-auth.ts";
import { authorizationCodeGrant } from "./code-grant.ts";
import type { GrantHandler } from "./grant.ts";

/** Every grant type the token endpoint serves, and who implements it. */
const GRANTS: Readonly<Record<string, GrantHandler>> = {
  refresh_token: refreshTokenGrant,
  authorization_code: authorizationCodeGrant,
};

function oauthError(error: string, description: string, status = 400): Response {
  return jsonResponse({ error, error_description: description }, status, { pragma: "no-cache" });
}

/** client_id and client_secret from the body, or from HTTP Basic auth (RFC 6749 §2.3.1). */
function clientCredentials(request: Request, params: Record<string, string>) {
  const header = request.headers.get("authorization");
  if (header?.toLowerCase().startsWith("basic ")) {
    try {
      const decoded = Buffer.from(header.slice(6).trim(), "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      if (colon > 0) {
        return {
          clientId: decodeURIComponent(decoded.slice(0, colon)),
          clientSecret: decodeURIComponent(decoded.slice(colon + 1)),
        };
      }
    } catch {
      // Fall through to the body parameters.
    }
  }
  return { clientId: params.client_id, clientSecret: params.client_secret };
}

export const tokenRoutes = [
  defineRoute({
    method: "POST",
    path: "/auth/oauth/token",
    summary: "OAuth 2 token endpoint: refresh and authorization-code grants (form-encoded or JSON)",
    tags: ["Sessions"],
    access: "public",
    request: { body: z.record(z.string(), z.unknown()).optional() },
    response: {
      raw: true,
      description: "RFC 6749 token response, or a known error, or an OAuth error object",
    },
    handler: async ({ deps, body, request, clientIp }) => {
      const params: Record<string, string> = {};
      for (const [key, value] of Object.entries(body ?? {})) {
        if (typeof value === "string") params[key] = value;
        else if (typeof value === "number" || typeof value === "boolean") params[key] = String(value);
      }
      const { clientId, clientSecret } = clientCredentials(request, params);
      if (!params.grant_type) return oauthError("invalid_request", "grant_type is required.");
      const handler = Object.hasOwn(GRANTS, params.grant_type) ? GRANTS[params.grant_type] : undefined;
      if (!handler)
        return oauthError("unsupported_grant_type", `Unsupported grant_type "${params.grant_type}".`);
      if (!clientId) throw knownError("INVALID_OAUTH_CLIENT_ID_OR_SECRET", { client_id: null });

      const { project, config } = await authenticateOAuthClient(deps, clientId, clientSecret);

      const result = await handler({
        deps,
        project,
        config,
        params,
        clientIp,
        userAgent: request.headers.get("user-agent"),
      });
      return jsonResponse(result, 200, { "cache-control": "no-store", pragma: "no-cache" });
    },
  }),
];
