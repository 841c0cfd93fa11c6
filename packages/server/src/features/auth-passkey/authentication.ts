import type {
  AuthenticationResponseJSON,
  PublicKeyCredentialRequestOptionsJSON,
  VerifiedAuthenticationResponse,
} from "@simplewebauthn/server";
import { and, eq, lt, sql } from "drizzle-orm";
import type { z } from "zod";
import type { AppDeps } from "../../deps.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { completeSignIn, type SignInResult } from "../sessions/sign-in.ts";
import { users } from "../users/schema.ts";
import { consumeVerificationCode, createVerificationCode } from "../verification-codes/service.ts";
import { passkeyCredentials } from "./schema.ts";
import {
  asCeremonyError,
  assertPasskeyEnabled,
  authenticationFailed,
  type authenticationResponseSchema,
  CEREMONY_TIMEOUT_MS,
  CHALLENGE_LIFETIME_MS,
  CHALLENGES_PER_IP,
  loadWebAuthn,
  RP_ID_PLACEHOLDER,
  trustedCeremonyOrigin,
  userHandleOf,
} from "./webauthn.ts";

/**
 * `POST /auth/passkey/initiate-passkey-authentication`: request options with a fresh challenge. No credentials are
 * listed: passkeys are discoverable, so the authenticator offers whichever of its passkeys fit this site.
 */
export async function initiateAuthentication(
  deps: AppDeps,
  auth: RequestAuth,
  ip: string | null,
): Promise<{ options_json: PublicKeyCredentialRequestOptionsJSON; code: string }> {
  assertPasskeyEnabled(auth.config);
  await consumeRateLimit(rateLimitScope(deps, auth, ip), CHALLENGES_PER_IP, ip);
  const { server } = await loadWebAuthn();
  const options = await server.generateAuthenticationOptions({
    rpID: RP_ID_PLACEHOLDER,
    allowCredentials: [],
    userVerification: "preferred",
    timeout: CEREMONY_TIMEOUT_MS,
  });
  const { code } = await createVerificationCode(deps.db, {
    projectId: auth.project.id,
    purpose: "passkey_authentication",
    data: { challenge: options.challenge },
    lifetimeMs: CHALLENGE_LIFETIME_MS,
  });
  return { options_json: options, code };
}

/**
 * `POST /auth/passkey/sign-in`: checks the assertion against the stored public key and signs its owner in
 * through `completeSignIn`, so a user with TOTP still has to give a code.
 */
export async function signInWithPasskey(
  deps: AppDeps,
  auth: RequestAuth,
  input: {
    response: z.output<typeof authenticationResponseSchema>;
    code: string;
    ip: string | null;
    userAgent?: string | null;
  },
): Promise<SignInResult> {
  assertPasskeyEnabled(auth.config);
  const projectId = auth.project.id;
  await consumeRateLimit(rateLimitScope(deps, auth, input.ip), RATE_LIMITS.signInPerIp, input.ip);
  const row = await consumeVerificationCode(deps.db, {
    projectId,
    purpose: "passkey_authentication",
    code: input.code,
  });
  const challenge = (row.data as { challenge?: unknown }).challenge;
  if (typeof challenge !== "string") throw authenticationFailed("The code is not a passkey challenge.");

  const [found] = await deps.db
    .select({ credential: passkeyCredentials, user: users })
    .from(passkeyCredentials)
    .innerJoin(users, eq(users.id, passkeyCredentials.userId))
    .where(
      and(
        eq(passkeyCredentials.projectId, projectId),
        eq(passkeyCredentials.credentialId, input.response.id),
      ),
    )
    .limit(1);
  if (!found) throw authenticationFailed("Passkey not found");
  const { credential, user } = found;
  const webAuthn = await loadWebAuthn();
  const { userHandle } = input.response.response;
  if (userHandle && userHandle !== userHandleOf(webAuthn, user.id)) {
    throw authenticationFailed("The passkey's user handle does not match its owner.");
  }
  const { origin, rpId } = trustedCeremonyOrigin(
    webAuthn,
    auth.config,
    input.response.response.clientDataJSON,
    authenticationFailed,
  );

  let verification: VerifiedAuthenticationResponse;
  try {
    verification = await webAuthn.server.verifyAuthenticationResponse({
      response: input.response as unknown as AuthenticationResponseJSON,
      expectedChallenge: challenge,
      expectedOrigin: origin,
      expectedRPID: rpId,
      credential: {
        id: credential.credentialId,
        publicKey: webAuthn.helpers.isoBase64URL.toBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports,
      },
      requireUserVerification: false,
    });
  } catch (error) {
    throw asCeremonyError(webAuthn, error, authenticationFailed);
  }
  if (!verification.verified) throw authenticationFailed("The passkey's signature could not be verified.");

  // Turning passkey sign-in off for a user (PATCH /users/me) keeps their credentials but stops them working.
  if (!user.passkeyAuthEnabled) throw authenticationFailed("Passkey sign-in is turned off for this user.");

  // The counter must move forward (or stay 0 for authenticators without one); compared again in the update, so
  // that of two assertions with one counter value only one counts. A counter going back hints at a cloned key.
  const { newCounter } = verification.authenticationInfo;
  const updated = await deps.db
    .update(passkeyCredentials)
    .set({ counter: newCounter, lastUsedAt: sql`now()` })
    .where(
      and(
        eq(passkeyCredentials.projectId, projectId),
        eq(passkeyCredentials.id, credential.id),
        newCounter === 0 ? eq(passkeyCredentials.counter, 0) : lt(passkeyCredentials.counter, newCounter),
      ),
    )
    .returning({ id: passkeyCredentials.id });
  if (updated.length === 0) throw authenticationFailed("The passkey's signature counter did not increase.");

  return completeSignIn(deps, {
    projectId,
    config: auth.config,
    user,
    isNewUser: false,
    ip: input.ip,
    userAgent: input.userAgent,
  });
}
