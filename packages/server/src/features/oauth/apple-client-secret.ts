/**
 * Apple's client secret: not a fixed string but a JWT the app signs with its Sign in with Apple key (ES256, the
 * `.p8` file's P-256 key), naming the key (`kid`), the team (`iss`), the Services ID (`sub`) and Apple (`aud`).
 * Apple accepts one for up to six months; minting a fresh one for each call means none ever needs rotating.
 */
import { importPKCS8, SignJWT } from "jose";
import { providerSetupError } from "./provider-endpoints.ts";

/** Long enough for one token request, clock drift included. */
const CLIENT_SECRET_LIFETIME_SECONDS = 5 * 60;

export type AppleSigningKey = { teamId: string; keyId: string; privateKey: string };

export async function appleClientSecret(
  key: AppleSigningKey,
  input: { clientId: string; audience: string; now?: Date },
): Promise<string> {
  let privateKey: CryptoKey;
  try {
    privateKey = await importPKCS8(key.privateKey, "ES256");
  } catch {
    throw providerSetupError(
      "Apple's private key (applePrivateKey) is not an ES256 key: paste the whole .p8 file Apple gave you.",
    );
  }
  const issuedAt = Math.floor((input.now ?? new Date()).getTime() / 1000);
  return new SignJWT({})
    .setProtectedHeader({ alg: "ES256", kid: key.keyId })
    .setIssuer(key.teamId)
    .setSubject(input.clientId)
    .setAudience(input.audience)
    .setIssuedAt(issuedAt)
    .setExpirationTime(issuedAt + CLIENT_SECRET_LIFETIME_SECONDS)
    .sign(privateKey);
}
