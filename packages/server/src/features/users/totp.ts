import { decryptSecret, encryptSecret } from "../../crypto/index.ts";
import type { ServerEnv } from "../../env.ts";

/** The encryption purpose of TOTP secrets: a ciphertext from any other column will not decrypt as one. */
const TOTP_PURPOSE = "totp";

/**
 * Encrypts a TOTP secret for `users.totp_secret_encrypted`. What is encrypted is the canonical base64 of the secret
 * bytes, so that `decryptTotpSecret` gives back exactly the bytes the authenticator app was set up with.
 */
export function encryptTotpSecret(env: ServerEnv, secretBase64: string): string {
  const canonical = Buffer.from(secretBase64, "base64").toString("base64");
  return encryptSecret(canonical, { masterSecret: env.secret, purpose: TOTP_PURPOSE });
}

/** The secret bytes of a stored TOTP secret (for checking codes at MFA sign-in). */
export function decryptTotpSecret(env: ServerEnv, encrypted: string): Uint8Array {
  return new Uint8Array(
    Buffer.from(decryptSecret(encrypted, { masterSecret: env.secret, purpose: TOTP_PURPOSE }), "base64"),
  );
}
