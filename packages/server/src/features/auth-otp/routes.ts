import type { WireSignInOrUpTokens } from "@gatehouse/shared";
import { z } from "zod";
import { type AnyRoute, defineRoute } from "../../http/route.ts";
import { wire } from "../../http/wire-schema.ts";
import { codeBodySchema, emailAddressSchema } from "../contact-channels/views.ts";
import { sendSignInCode, signInWithCode } from "./service.ts";

const tags = ["OTP"];

const sendCodeBody = z.strictObject({
  email: emailAddressSchema,
  callback_url: z.string(),
  // The SDK sends bot-challenge fields; there is no challenge provider yet, so they are accepted and ignored.
  bot_challenge_token: z.string().optional(),
  bot_challenge_phase: z.enum(["invisible", "visible"]).optional(),
  bot_challenge_unavailable: z.literal("true").optional(),
});

export const otpRoutes: AnyRoute[] = [
  defineRoute({
    method: "POST",
    path: "/auth/otp/send-sign-in-code",
    summary: "Email a magic link and sign-in code",
    tags,
    access: ["client", "server", "admin"],
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
  defineRoute({
    method: "POST",
    path: "/auth/otp/sign-in",
    summary: "Sign in (or sign up) with an email code: the magic-link code, or the typed code + nonce",
    tags,
    access: ["client", "server", "admin"],
    request: { body: codeBodySchema },
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
      const result = await signInWithCode(deps, auth, {
        code: body.code,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
        peek: false,
      });
      return { body: result };
    },
  }),
  defineRoute({
    method: "POST",
    path: "/auth/otp/sign-in/check-code",
    summary: "Check an email sign-in code without using it",
    tags,
    access: ["client", "server", "admin"],
    request: { body: codeBodySchema },
    response: { body: z.object({ is_code_valid: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      await signInWithCode(deps, auth, { code: body.code, ip: clientIp, peek: true });
      return { body: { is_code_valid: true } };
    },
  }),
];
