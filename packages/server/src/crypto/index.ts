/**
 * The server's security primitives. Each file holds one concern and explains its numbers:
 *
 *   random.ts               random codes, tokens, hex and UUIDs
 *   hash.ts                 SHA-256 for stored tokens and keys; constant-time comparison
 *   crc32.ts                the checksum inside user/team API keys
 *   keys.ts                 project and user/team API key formats
 *   encryption.ts           AES-256-GCM for secrets the server must read back
 *   password.ts             Argon2id password hashing, imported bcrypt hashes, the dummy verification
 *   signing-keys.ts         deterministic ES256 key derivation and key ids
 *   access-token-claims.ts  the claim set, issuer and audience of access tokens
 *   access-tokens.ts        signing and verifying access tokens, the JWKS
 */

export {
  type AccessTokenClaims,
  accessTokenAudience,
  accessTokenIssuer,
  type RestrictedReason,
  type RestrictedReasonType,
} from "./access-token-claims.ts";
export {
  createTokenKeyring,
  type DecodedTokenIds,
  type JwksOptions,
  type SignAccessTokenInput,
  type TokenKeyring,
  type TokenKeyringOptions,
  type VerifyAccessTokenOptions,
  type VerifyAccessTokenResult,
} from "./access-tokens.ts";
export { crc32, crc32Hex } from "./crc32.ts";
export {
  decryptSecret,
  encryptSecret,
  isEncryptedSecret,
  SecretDecryptionError,
  type SecretEncryptionKey,
} from "./encryption.ts";
export { constantTimeEqual, sha256Bytes, sha256Hex } from "./hash.ts";
export {
  apiKeyLastFour,
  generateProjectApiKey,
  generateUserOrTeamApiKey,
  hashApiKey,
  type ParsedUserOrTeamApiKey,
  PROJECT_API_KEY_PREFIXES,
  type ProjectApiKeyKind,
  parseUserOrTeamApiKey,
  projectApiKeyKind,
  USER_OR_TEAM_API_KEY_LENGTH,
  type UserOrTeamApiKeyType,
} from "./keys.ts";
export {
  ARGON2ID_PARAMETERS,
  hashPassword,
  isSupportedPasswordHash,
  type PasswordVerification,
  verifyPassword,
  verifyPasswordAgainstDummy,
} from "./password.ts";
export * from "./random.ts";
export type { AudienceKind, KeyGeneration, PublicSigningJwk } from "./signing-keys.ts";
