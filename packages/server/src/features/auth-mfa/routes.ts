import type { WireSignInOrUpTokens } from "@gatehouse/shared";
import { z } from "zod";
import { SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import { type AnyRoute, defineRoute } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { signInWithTotp } from "./service.ts";

export const mfaRoutes: AnyRoute[] = [
  defineRoute({
    method: "POST",
    path: "/auth/mfa/sign-in",
    summary: "Finish a sign-in that needs a second factor, with the attempt code and a TOTP code",
    tags: ["Multi-factor authentication"],
    access: ["client", "server", "admin"],
    request: {
      body: z.strictObject({
        type: z.literal("totp"),
        // Any short string: a malformed code is INVALID_TOTP_CODE (and an attempt), like a wrong one.
        totp: z.string().max(64),
        code: z.string().length(SECURE_TOKEN_LENGTH),
      }),
    },
    response: {
      body: wire<WireSignInOrUpTokens>()(
        z.object({
          access_token: z.string(),
          refresh_token: z.string(),
          is_new_user: z.boolean(),
          user_id: z.string(),
        }),
      ),
    },
    handler: async ({ deps, auth, body, request, clientIp }) => {
      const result = await signInWithTotp(deps, auth, {
        attemptCode: body.code,
        totp: body.totp,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
      });
      return { body: result };
    },
  }),
];
