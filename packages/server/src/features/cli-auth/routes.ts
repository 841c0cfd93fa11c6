import type { WireCliLoginPoll, WireCliLoginStarted } from "@gatehouse/shared";
import { z } from "zod";
import { routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { wire } from "../../http/wire-schema.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import {
  attemptHasAnonymousSession,
  CLI_POLL_RATE_LIMIT,
  claimAnonymousSession,
  completeAttempt,
  createCliAuthAttempt,
  DEFAULT_CLI_AUTH_LIFETIME_MS,
  findPendingAttempt,
  MAX_CLI_AUTH_LIFETIME_MS,
  pollCliAuthAttempt,
} from "./service.ts";

const tags = ["CLI login"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
/** Codes are 45 characters; the cap only keeps absurd inputs away from hashing. */
const code = z.string().min(1).max(200);

export const cliAuthRoutes = [
  anyKey.post("/auth/cli", {
    summary: "Start a CLI login: a polling code for the CLI and a login code for the browser",
    request: {
      body: z
        .strictObject({
          expires_in_millis: z.number().int().positive().max(MAX_CLI_AUTH_LIFETIME_MS).optional(),
          anon_refresh_token: z.string().max(200).optional(),
        })
        .optional(),
    },
    response: {
      body: wire<WireCliLoginStarted>()(
        z.object({ polling_code: z.string(), login_code: z.string(), expires_at: z.string() }),
      ),
    },
    handler: async ({ deps, auth, body }) => {
      const created = await createCliAuthAttempt(deps, {
        projectId: auth.project.id,
        lifetimeMs: body?.expires_in_millis ?? DEFAULT_CLI_AUTH_LIFETIME_MS,
        anonRefreshToken: body?.anon_refresh_token,
      });
      return {
        body: {
          polling_code: created.pollingCode,
          login_code: created.loginCode,
          expires_at: created.expiresAt.toISOString(),
        },
      };
    },
  }),
  anyKey.post("/auth/cli/poll", {
    summary: "Poll a CLI login; 201 with the refresh token once the browser has completed it",
    request: { body: z.strictObject({ polling_code: code }) },
    response: {
      body: wire<WireCliLoginPoll>()(
        z.union([
          z.object({ status: z.enum(["waiting", "expired", "used"]) }),
          z.object({ status: z.literal("success"), refresh_token: z.string() }),
        ]),
      ),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      await consumeRateLimit(rateLimitScope(deps, auth, clientIp), CLI_POLL_RATE_LIMIT, clientIp);
      const result = await pollCliAuthAttempt(deps, auth.project.id, body.polling_code);
      // The SDK treats only a 201 as success (PROTOCOL.md §4.9).
      return { status: result.status === "success" ? 201 : 200, body: result };
    },
  }),
  anyKey.post("/auth/cli/complete", {
    summary: "From the browser: check a CLI login, claim its anonymous session, or complete it",
    request: {
      body: z.strictObject({
        login_code: code,
        mode: z.enum(["check", "claim-anon-session", "complete"]).optional(),
        refresh_token: z.string().min(1).max(200).optional(),
      }),
    },
    response: {
      body: z.union([
        z.object({ cli_session_state: z.enum(["anonymous", "none"]) }),
        z.object({ access_token: z.string(), refresh_token: z.string() }),
        z.object({ success: z.literal(true) }),
      ]),
    },
    handler: async ({ deps, auth, body, clientIp }) => {
      const attempt = await findPendingAttempt(deps.db, auth.project.id, body.login_code);
      const mode = body.mode ?? "complete";
      if (mode === "check") {
        const anonymous = await attemptHasAnonymousSession(deps.db, attempt);
        return { body: { cli_session_state: anonymous ? "anonymous" : "none" } };
      }
      if (mode === "claim-anon-session") {
        return { body: await claimAnonymousSession(deps, attempt, auth.config, clientIp) };
      }
      if (!body.refresh_token)
        throw new StatusError(400, "refresh_token is required when mode is 'complete'");
      await completeAttempt(deps, { attempt, refreshToken: body.refresh_token, config: auth.config });
      return { body: { success: true as const } };
    },
  }),
];
