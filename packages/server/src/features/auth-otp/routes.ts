import { z } from "zod";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { codeBodySchema, emailAddressSchema } from "../contact-channels/views.ts";
import { signInOrUpTokensSchema } from "../sessions/sign-in.ts";
import { sendSignInCode, signInWithCode } from "./service.ts";

const tags = ["OTP"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });

const sendCodeBody = z.strictObject({
  email: emailAddressSchema,
  callback_url: z.string(),
  // The SDK sends bot-challenge fields; there is no challenge provider yet, so they are accepted and ignored.
  bot_challenge_token: z.string().optional(),
  bot_challenge_phase: z.enum(["invisible", "visible"]).optional(),
  bot_challenge_unavailable: z.literal("true").optional(),
});

export const otpRoutes: AnyRoute[] = [
  anyKey.post("/auth/otp/send-sign-in-code", {
    summary: "Email a magic link and sign-in code",
    request: { body: sendCodeBody },
    response: { body: z.object({ nonce: z.string() }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      const result = await sendSignInCode(deps, auth, {
        email: body.email,
        callbackUrl: body.callback_url,
        ip: clientIp,
      });
      return { body: result };
    },
  }),
  anyKey.post("/auth/otp/sign-in", {
    summary: "Sign in (or sign up) with an email code: the magic-link code, or the typed code + nonce",
    request: { body: codeBodySchema },
    response: { body: signInOrUpTokensSchema },
    handler: async ({ deps, auth, body, request, clientIp }) => {
      const result = await signInWithCode(deps, auth, {
        code: body.code,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
        peek: false,
      });
      return { body: result };
    },
  }),
  anyKey.post("/auth/otp/sign-in/check-code", {
    summary: "Check an email sign-in code without using it",
    request: { body: codeBodySchema },
    response: { body: z.object({ is_code_valid: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      await signInWithCode(deps, auth, { code: body.code, ip: clientIp, peek: true });
      return { body: { is_code_valid: true } };
    },
  }),
];
