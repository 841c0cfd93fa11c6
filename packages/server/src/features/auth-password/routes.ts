import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { assertTrustedCallbackUrl } from "../../config/trusted-urls.ts";
import { hashPassword, SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { isUuid } from "../../fields/ids.ts";
import { storableText } from "../../fields/text.ts";
import { requireUserAsSchema } from "../../http/current-user.ts";
import { readProtocolHeader } from "../../http/protocol-headers.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { consumePasswordCheckLimits } from "../../rate-limit/password-checks.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { sendSignInAttemptsEmail } from "../emails/built-in.ts";
import { deleteOtherSessions, findSessionByRefreshToken } from "../sessions/service.ts";
import { completeSignIn, signInTokensSchema } from "../sessions/sign-in.ts";
import { setFirstPasswordHash, storePasswordHash } from "../users/store.ts";
import { defaultVerifier, findPasswordOwner, verifyPasswordOf } from "./credentials.ts";
import { assertPasswordAuthEnabled, assertPasswordRequirements } from "./policy.ts";
import { checkPasswordResetCode, resetPassword, sendPasswordResetCode } from "./reset.ts";
import { createPasswordAccount, sendVerificationEmail } from "./sign-up.ts";

const tags = ["Password authentication"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });

/** Emails are length-checked only; their format is the sign-up's business, and sign-in must find any stored one. */
const anyEmail = storableText(254).min(1);
/**
 * New passwords are limited by PASSWORD_TOO_SHORT / PASSWORD_TOO_LONG, not by the schema; the cap only keeps absurd
 * inputs away from the hasher.
 */
const passwordInput = z.string().max(4096);
const callbackUrl = z.string().max(2048);
const code = z.string().length(SECURE_TOKEN_LENGTH);

const success = z.object({ success: z.literal(true) });
const RESET_CODE_SENT = "maybe, only if user with e-mail exists";

export const passwordRoutes: AnyRoute[] = [
  anyKey.post("/auth/password/sign-up", {
    summary: "Sign up with email and password (upgrades the signed-in anonymous user, if any)",
    request: {
      body: z.strictObject({
        email: z.string().trim().max(254).pipe(z.email()),
        password: passwordInput,
        verification_callback_url: callbackUrl.optional(),
        // Bot challenges are not run here; the fields are accepted so that SDKs which send them keep working.
        bot_challenge_token: z.string().optional(),
        bot_challenge_phase: z.enum(["invisible", "visible"]).optional(),
        bot_challenge_unavailable: z.string().optional(),
      }),
    },
    response: { body: signInTokensSchema },
    handler: async ({ deps, auth, body, request, clientIp }) => {
      const { project, config } = auth;
      assertPasswordAuthEnabled(config);
      const callback = body.verification_callback_url;
      if (callback !== undefined) assertTrustedCallbackUrl(config, callback);
      // Upgrading an anonymous user makes a real account too; otherwise sign-up could be switched off in name only.
      if (!config.auth.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
      assertPasswordRequirements(body.password);
      await consumeRateLimit(rateLimitScope(deps, auth, clientIp), RATE_LIMITS.signUpPerIp, clientIp);

      const anonymousUser = auth.user?.isAnonymous ? auth.user : null;
      const user = await createPasswordAccount(deps, {
        projectId: project.id,
        config,
        email: body.email,
        password: body.password,
        anonymousUser,
        ip: clientIp,
      });
      if (callback !== undefined) {
        await sendVerificationEmail(deps, project, {
          userId: user.id,
          email: normalizeEmail(body.email),
          callbackUrl: callback,
        });
      }
      const result = await completeSignIn(deps, {
        projectId: project.id,
        config,
        user,
        isNewUser: true,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
      });
      return {
        body: { access_token: result.access_token, refresh_token: result.refresh_token, user_id: user.id },
      };
    },
  }),
  anyKey.post("/auth/password/sign-in", {
    summary: "Sign in with email and password",
    request: { body: z.strictObject({ email: anyEmail, password: passwordInput }) },
    response: { body: signInTokensSchema },
    handler: async ({ deps, auth, body, request, clientIp }) => {
      const { project, config } = auth;
      assertPasswordAuthEnabled(config);
      const limits = rateLimitScope(deps, auth, clientIp);
      const { owner, address } = await findPasswordOwner(limits, body.email);
      // Before any hashing: a blocked attacker must not be able to make the server do the expensive part. The
      // per-address limit is counted with the per-account ones, in one statement.
      const { addressRecordedRecently } = await consumePasswordCheckLimits(limits, {
        account: normalizeEmail(body.email),
        userId: owner?.user.id ?? null,
        address,
        alongWith: [{ rule: RATE_LIMITS.signInPerIp, subject: clientIp }],
        onCeilingReached: owner
          ? (ceiling) =>
              sendSignInAttemptsEmail(deps, project, {
                to: owner.channel.value,
                userId: owner.user.id,
                attempts: ceiling.limit,
                windowMinutes: Math.max(1, Math.round(ceiling.windowSeconds / 60)),
              }).then(() => undefined)
          : undefined,
      });
      const user = await verifyPasswordOf(deps.db, project.id, owner, body.password);
      if (!user) throw knownError("EMAIL_PASSWORD_MISMATCH");
      const result = await completeSignIn(deps, {
        projectId: project.id,
        config,
        user,
        // The email signed in with is usually the primary one, which the access token names: no second read.
        primaryChannel: owner!.channel.isPrimary ? owner!.channel : undefined,
        addressRecordedRecently,
        isNewUser: false,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
      });
      return {
        body: { access_token: result.access_token, refresh_token: result.refresh_token, user_id: user.id },
      };
    },
  }),
  anyKey.post("/auth/password/send-reset-code", {
    summary: "Email a password reset link, if an account signs in with this email",
    request: { body: z.strictObject({ email: anyEmail, callback_url: callbackUrl }) },
    response: { body: z.object({ success: z.literal(RESET_CODE_SENT) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      assertPasswordAuthEnabled(auth.config);
      assertTrustedCallbackUrl(auth.config, body.callback_url);
      // Counted whether or not the account exists, so that the limits do not reveal it either.
      const limits = rateLimitScope(deps, auth, clientIp);
      await consumeRateLimit(limits, RATE_LIMITS.emailPerIp, clientIp);
      await consumeRateLimit(limits, RATE_LIMITS.emailPerRecipient, normalizeEmail(body.email));
      await sendPasswordResetCode(deps, auth.project, { email: body.email, callbackUrl: body.callback_url });
      return { body: { success: RESET_CODE_SENT } };
    },
  }),
  anyKey.post("/auth/password/reset", {
    summary: "Set a new password with an emailed reset code; ends every session of the user",
    request: { body: z.strictObject({ code, password: passwordInput }) },
    response: { body: success },
    handler: async ({ deps, auth, body, clientIp }) => {
      assertPasswordAuthEnabled(auth.config);
      // Checked first so that a rejected password does not use up the code.
      assertPasswordRequirements(body.password);
      await consumeRateLimit(rateLimitScope(deps, auth, clientIp), RATE_LIMITS.codeCheckPerIp, clientIp);
      await resetPassword(deps, auth.project.id, body);
      return { body: { success: true as const } };
    },
  }),
  anyKey.post("/auth/password/reset/check-code", {
    summary: "Check a password reset code without using it",
    request: { body: z.strictObject({ code }) },
    response: { body: z.object({ is_code_valid: z.literal(true) }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      await consumeRateLimit(rateLimitScope(deps, auth, clientIp), RATE_LIMITS.codeCheckPerIp, clientIp);
      await checkPasswordResetCode(deps, auth.project.id, body.code);
      return { body: { is_code_valid: true as const } };
    },
  }),
  anyKey.post("/auth/password/update", {
    summary: "Change the signed-in user's password; ends their other sessions",
    request: { body: z.strictObject({ old_password: passwordInput, new_password: passwordInput }) },
    response: { body: success },
    handler: async ({ deps, auth, body, request, clientIp }) => {
      // The reference's request schema needs a user here: SCHEMA_ERROR "auth.user must be defined", not a 401.
      const user = requireUserAsSchema(auth, "POST", new URL(request.url).pathname);
      const projectId = auth.project.id;
      assertPasswordAuthEnabled(auth.config);
      if (user.passwordHash === null) throw knownError("USER_DOES_NOT_HAVE_PASSWORD");
      assertPasswordRequirements(body.new_password);
      const limits = rateLimitScope(deps, auth, clientIp);
      await consumeRateLimit(limits, RATE_LIMITS.signInPerIp, clientIp);
      await consumePasswordCheckLimits(limits, { account: `user:${user.id}`, userId: user.id });
      const check = await defaultVerifier.verify(user.passwordHash, body.old_password);
      if (!check.valid) throw knownError("PASSWORD_CONFIRMATION_MISMATCH");
      await storePasswordHash(deps.db, projectId, user.id, await hashPassword(body.new_password));

      // The session to keep: the refresh token's, when the SDK sends it, else the access token's.
      let keepSessionId = auth.accessToken?.refresh_token_id ?? null;
      const refreshToken = readProtocolHeader(request.headers, "refresh-token");
      if (refreshToken) {
        const found = await findSessionByRefreshToken(deps.db, projectId, refreshToken);
        if (found?.user.id === user.id) keepSessionId = found.session.id;
      }
      await deleteOtherSessions(
        deps.db,
        projectId,
        user.id,
        keepSessionId && isUuid(keepSessionId) ? keepSessionId : null,
      );
      return { body: { success: true as const } };
    },
  }),
  anyKey.post("/auth/password/set", {
    summary: "Give the signed-in user a password when they have none",
    request: { body: z.strictObject({ password: passwordInput }) },
    response: { body: success },
    handler: async ({ deps, auth, body }) => {
      const user = requireUserAsSchema(auth, "POST", "/api/v1/auth/password/set");
      assertPasswordAuthEnabled(auth.config);
      const alreadySet = () =>
        new StatusError(
          400,
          "This user already has a password. Use POST /auth/password/update to change it.",
        );
      if (user.passwordHash !== null) throw alreadySet();
      assertPasswordRequirements(body.password);
      const hash = await hashPassword(body.password);
      if (!(await setFirstPasswordHash(deps.db, auth.project.id, user.id, hash))) throw alreadySet();
      return { body: { success: true as const } };
    },
  }),
];
