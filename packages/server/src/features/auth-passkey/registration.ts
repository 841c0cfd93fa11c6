import type {
  PublicKeyCredentialCreationOptionsJSON,
  RegistrationResponseJSON,
  VerifiedRegistrationResponse,
} from "@simplewebauthn/server";
import { and, eq } from "drizzle-orm";
import type { z } from "zod";
import { randomUuid } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { requireUser } from "../../http/current-user.ts";
import type { RequestAuth } from "../../http/request-auth.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { findPrimaryChannel } from "../users/service.ts";
import { enableSignInMethod } from "../users/store.ts";
import { consumeVerificationCode, createVerificationCode } from "../verification-codes/service.ts";
import { passkeyCredentials } from "./schema.ts";
import {
  asCeremonyError,
  assertPasskeyEnabled,
  CEREMONY_TIMEOUT_MS,
  CHALLENGE_LIFETIME_MS,
  CHALLENGES_PER_IP,
  loadWebAuthn,
  RP_ID_PLACEHOLDER,
  registrationFailed,
  type registrationResponseSchema,
  SUPPORTED_ALGORITHMS,
  trustedCeremonyOrigin,
  userHandleOf,
} from "./webauthn.ts";

/** `POST /auth/passkey/initiate-passkey-registration`: creation options for the signed-in user, and their code. */
export async function initiateRegistration(
  deps: AppDeps,
  auth: RequestAuth,
  ip: string | null,
): Promise<{ options_json: PublicKeyCredentialCreationOptionsJSON; code: string }> {
  assertPasskeyEnabled(auth.config);
  const user = requireUser(auth);
  const projectId = auth.project.id;
  await consumeRateLimit(rateLimitScope(deps, auth, ip), CHALLENGES_PER_IP, ip);
  const [channel, existing] = await Promise.all([
    findPrimaryChannel(deps.db, projectId, user.id),
    deps.db
      .select({ credentialId: passkeyCredentials.credentialId, transports: passkeyCredentials.transports })
      .from(passkeyCredentials)
      .where(and(eq(passkeyCredentials.projectId, projectId), eq(passkeyCredentials.userId, user.id))),
  ]);
  const name = channel?.value ?? user.displayName ?? user.id;
  const { server } = await loadWebAuthn();
  const options = await server.generateRegistrationOptions({
    rpName: auth.project.displayName,
    rpID: RP_ID_PLACEHOLDER,
    userID: new TextEncoder().encode(user.id),
    userName: name,
    userDisplayName: user.displayName ?? name,
    timeout: CEREMONY_TIMEOUT_MS,
    attestationType: "none",
    // The authenticator already holding one of this user's passkeys should not make a second one.
    excludeCredentials: existing.map((row) => ({ id: row.credentialId, transports: row.transports })),
    authenticatorSelection: { residentKey: "required", userVerification: "preferred" },
    extensions: { credProps: true },
    supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
  });
  const { code } = await createVerificationCode(deps.db, {
    projectId,
    purpose: "passkey_registration",
    data: { user_id: user.id, challenge: options.challenge },
    lifetimeMs: CHALLENGE_LIFETIME_MS,
  });
  return { options_json: options, code };
}

/**
 * `POST /auth/passkey/register`: checks the authenticator's answer to the challenge of `code` and stores the new
 * public key. The code is used up first, whatever the outcome: a challenge answers one ceremony only.
 */
export async function registerPasskey(
  deps: AppDeps,
  auth: RequestAuth,
  input: { credential: z.output<typeof registrationResponseSchema>; code: string },
): Promise<{ user_handle: string }> {
  assertPasskeyEnabled(auth.config);
  const user = requireUser(auth);
  const projectId = auth.project.id;
  const row = await consumeVerificationCode(deps.db, {
    projectId,
    purpose: "passkey_registration",
    code: input.code,
  });
  const data = row.data as { user_id?: unknown; challenge?: unknown };
  if (data.user_id !== user.id || typeof data.challenge !== "string") {
    throw registrationFailed("This registration was started by another user.");
  }
  const webAuthn = await loadWebAuthn();
  const { origin, rpId } = trustedCeremonyOrigin(
    webAuthn,
    auth.config,
    input.credential.response.clientDataJSON,
    registrationFailed,
  );

  let verification: VerifiedRegistrationResponse;
  try {
    verification = await webAuthn.server.verifyRegistrationResponse({
      response: input.credential as unknown as RegistrationResponseJSON,
      expectedChallenge: data.challenge,
      expectedOrigin: origin,
      expectedRPID: rpId,
      // Verification is "preferred", not required: a passkey without a PIN or biometric is still a passkey.
      requireUserVerification: false,
      supportedAlgorithmIDs: SUPPORTED_ALGORITHMS,
    });
  } catch (error) {
    throw asCeremonyError(webAuthn, error, registrationFailed);
  }
  if (!verification.verified) throw registrationFailed("The passkey's attestation could not be verified.");

  const { credential } = verification.registrationInfo;
  try {
    await deps.db.transaction(async (raw) => {
      const tx = raw as unknown as Database;
      await tx.insert(passkeyCredentials).values({
        projectId,
        id: randomUuid(),
        userId: user.id,
        credentialId: credential.id,
        publicKey: webAuthn.helpers.isoBase64URL.fromBuffer(credential.publicKey),
        counter: credential.counter,
        transports: credential.transports ?? input.credential.response.transports ?? [],
      });
      await enableSignInMethod(tx, projectId, user.id, "passkey");
    });
  } catch (error) {
    if (isUniqueViolation(error)) throw registrationFailed("This passkey is already registered.");
    throw error;
  }
  return { user_handle: userHandleOf(webAuthn, user.id) };
}
