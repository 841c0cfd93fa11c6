import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { requireUser, resolveUserId } from "../../http/current-user.ts";
import { routeGroup } from "../../http/route.ts";
import { findPrimaryChannel } from "../users/service.ts";
import { contactChannelNotFound, findContactChannel } from "./service.ts";
import { sendEmailVerificationCode, verifyEmailCode } from "./verification.ts";
import { codeBodySchema, emailAddressSchema } from "./views.ts";

const tags = ["Contact channels"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const success = z.object({ success: z.literal(true) });

export const verificationRoutes = [
  anyKey.post("/contact-channels/:user_id/:contact_channel_id/send-verification-code", {
    summary: "Email a verification link to a contact channel",
    request: {
      params: z.strictObject({ user_id: z.string(), contact_channel_id: z.string() }),
      body: z.strictObject({ callback_url: z.string() }),
    },
    response: { body: success },
    handler: async ({ deps, auth, params, body, clientIp }) => {
      const userId = resolveUserId(auth, params.user_id);
      const channel = await findContactChannel(deps.db, auth.project.id, userId, params.contact_channel_id);
      if (!channel) throw contactChannelNotFound();
      if (channel.isVerified) throw knownError("EMAIL_ALREADY_VERIFIED");
      await sendEmailVerificationCode(
        deps,
        { project: auth.project, config: auth.config, ip: clientIp },
        { userId, email: channel.value, callbackUrl: body.callback_url },
      );
      return { body: { success: true } };
    },
  }),
  anyKey.post("/contact-channels/send-verification-code", {
    summary: "Email a verification link to the signed-in user's primary email (legacy)",
    request: { body: z.strictObject({ email: emailAddressSchema, callback_url: z.string() }) },
    response: { body: success },
    handler: async ({ deps, auth, body, clientIp }) => {
      const user = requireUser(auth);
      const primary = await findPrimaryChannel(deps.db, auth.project.id, user.id);
      // SPEC.md §5: sending a verification email requires a primary email, and this route only serves that one.
      if (!primary || primary.value !== body.email) {
        throw knownError("EMAIL_IS_NOT_PRIMARY_EMAIL", {
          email: body.email,
          primary_email: primary?.value ?? null,
        });
      }
      if (primary.isVerified) throw knownError("EMAIL_ALREADY_VERIFIED");
      await sendEmailVerificationCode(
        deps,
        { project: auth.project, config: auth.config, ip: clientIp },
        { userId: user.id, email: primary.value, callbackUrl: body.callback_url },
      );
      return { body: { success: true } };
    },
  }),
  anyKey.post("/contact-channels/verify", {
    summary: "Verify an email address with the code from a verification link",
    request: { body: codeBodySchema },
    response: { body: success },
    handler: async ({ deps, auth, body, clientIp }) => {
      await verifyEmailCode(
        deps,
        { projectId: auth.project.id, config: auth.config, ip: clientIp },
        { code: body.code, peek: false },
      );
      return { body: { success: true } };
    },
  }),
  anyKey.post("/contact-channels/verify/check-code", {
    summary: "Check an email verification code without using it",
    request: { body: codeBodySchema },
    response: { body: z.object({ is_code_valid: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      await verifyEmailCode(
        deps,
        { projectId: auth.project.id, config: auth.config, ip: clientIp },
        { code: body.code, peek: true },
      );
      return { body: { is_code_valid: true } };
    },
  }),
];
