import { z } from "zod";
import { SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { signInOrUpTokensSchema } from "../sessions/sign-in.ts";
import { signInWithTotp } from "./service.ts";

const anyKey = routeGroup({ tags: ["Multi-factor authentication"], access: ["client", "server", "admin"] });

export const mfaRoutes: AnyRoute[] = [
  anyKey.post("/auth/mfa/sign-in", {
    summary: "Finish a sign-in that needs a second factor, with the attempt code and a TOTP code",
    request: {
      body: z.strictObject({
        type: z.literal("totp"),
        // Any short string: a malformed code is INVALID_TOTP_CODE (and an attempt), like a wrong one.
        totp: z.string().max(64),
        code: z.string().length(SECURE_TOKEN_LENGTH),
      }),
    },
    response: { body: signInOrUpTokensSchema },
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
