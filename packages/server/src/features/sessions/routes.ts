import {
  knownError,
  type WireRefreshedToken,
  type WireSession,
  type WireSessionTokens,
} from "@gatehouse/shared";
import { z } from "zod";
import { requireUser, resolveUserId } from "../../http/current-user.ts";
import { readProtocolHeader } from "../../http/protocol-headers.ts";
import { routeGroup } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { endUserIpInfo } from "../../net/ip-info.ts";
import { findUser } from "../users/service.ts";
import {
  deleteSession,
  issueTokens,
  listSessions,
  MAX_SESSION_LIFETIME_MS,
  refreshSession,
} from "./service.ts";

const tags = ["Sessions"];
const serverOrAdmin = routeGroup({ tags, access: ["server", "admin"] });
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const success = z.object({ success: z.literal(true) });

const sessionSchema = wire<WireSession>()(
  z.object({
    id: z.string(),
    user_id: z.string(),
    created_at: z.number(),
    last_used_at: z.number(),
    is_impersonation: z.boolean(),
    is_current_session: z.boolean(),
    last_used_at_end_user_ip_info: z
      .object({
        ip: z.string(),
        countryCode: z.string().nullable(),
        regionCode: z.string().nullable(),
        cityName: z.string().nullable(),
        latitude: z.number().nullable(),
        longitude: z.number().nullable(),
        tzIdentifier: z.string().nullable(),
      })
      .optional(),
    /** Gatehouse extension: the browser's user agent at sign-in or at the last refresh, for "Chrome on macOS". */
    last_used_user_agent: z.string().nullable().optional(),
  }),
);

export const sessionRoutes = [
  serverOrAdmin.post("/auth/sessions", {
    summary: "Create a session for a user (servers signing a user in, impersonation)",
    request: {
      body: z.strictObject({
        user_id: z.string(),
        expires_in_millis: z.number().int().positive().max(MAX_SESSION_LIFETIME_MS).optional(),
        is_impersonation: z.boolean().optional(),
      }),
    },
    response: {
      body: wire<WireSessionTokens>()(z.object({ refresh_token: z.string(), access_token: z.string() })),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      const userId = resolveUserId(auth, body.user_id);
      const user = await findUser(deps.db, auth.project.id, userId);
      if (!user) throw knownError("USER_ID_DOES_NOT_EXIST", { user_id: body.user_id });
      const tokens = await issueTokens(deps, auth.project.id, user, auth.config, {
        isImpersonation: body.is_impersonation ?? false,
        ...(body.expires_in_millis ? { expiresInMillis: body.expires_in_millis } : {}),
        ip: clientIp,
      });
      return { body: tokens };
    },
  }),
  anyKey.delete("/auth/sessions/current", {
    summary: "Sign out: end the session of the access token",
    response: { body: success },
    handler: async ({ deps, auth }) => {
      const sessionId = auth.accessToken?.refresh_token_id;
      if (!sessionId || !(await deleteSession(deps.db, auth.project.id, sessionId))) {
        throw knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      }
      return { body: { success: true } };
    },
  }),
  anyKey.post("/auth/sessions/current/refresh", {
    summary: "A new access token for the refresh token in x-stack-refresh-token",
    response: { body: wire<WireRefreshedToken>()(z.object({ access_token: z.string() })) },
    handler: async ({ deps, auth, request, clientIp }) => {
      const refreshToken = readProtocolHeader(request.headers, "refresh-token");
      if (!refreshToken) throw knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      const accessToken = await refreshSession(
        deps,
        auth.project.id,
        refreshToken,
        auth.config,
        clientIp,
        request.headers.get("user-agent"),
      );
      if (!accessToken) throw knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      return { body: { access_token: accessToken } };
    },
  }),
  anyKey.get("/auth/sessions", {
    summary: "List a user's active sessions, newest first",
    request: { query: z.strictObject({ user_id: z.string() }) },
    response: { body: z.object({ items: z.array(sessionSchema), is_paginated: z.literal(false) }) },
    handler: async ({ deps, auth, query }) => {
      const userId = resolveUserId(auth, query.user_id);
      if (auth.accessType !== "client" && !(await findUser(deps.db, auth.project.id, userId))) {
        throw knownError("USER_NOT_FOUND");
      }
      const rows = await listSessions(deps.db, auth.project.id, userId);
      const currentId = auth.accessToken?.refresh_token_id;
      const items = rows
        // Impersonation sessions are the business of whoever holds server keys (they create them); the user's own
        // client does not see them. The one exception is the caller's own current session: an impersonating admin's
        // browser may see (and a handler page must be able to check) that the session it holds is one.
        .filter((row) => auth.accessType !== "client" || !row.isImpersonation || row.id === currentId)
        .map((row) => ({
          id: row.id,
          user_id: row.userId,
          created_at: row.createdAt.getTime(),
          last_used_at: row.lastUsedAt.getTime(),
          is_impersonation: row.isImpersonation,
          is_current_session: row.id === currentId,
          // A trusted proxy's word when it gave one, else located when read (a lookup in memory).
          ...(row.lastUsedIp
            ? { last_used_at_end_user_ip_info: endUserIpInfo(row.lastUsedIp, row.lastUsedGeo) }
            : {}),
          last_used_user_agent: row.lastUsedUserAgent,
        }));
      return { body: { items, is_paginated: false } };
    },
  }),
  anyKey.delete("/auth/sessions/:session_id", {
    summary: "End one of a user's sessions (not the current one)",
    request: {
      params: z.strictObject({ session_id: z.uuid() }),
      query: z.strictObject({ user_id: z.string() }),
    },
    response: { body: success },
    handler: async ({ deps, auth, params, query }) => {
      const userId = resolveUserId(auth, query.user_id);
      if (auth.accessType === "client") requireUser(auth);
      if (params.session_id === auth.accessToken?.refresh_token_id)
        throw knownError("CANNOT_DELETE_CURRENT_SESSION");
      const sessions = await listSessions(deps.db, auth.project.id, userId);
      if (!sessions.some((s) => s.id === params.session_id))
        throw knownError("REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED");
      await deleteSession(deps.db, auth.project.id, params.session_id);
      return { body: { success: true } };
    },
  }),
];
