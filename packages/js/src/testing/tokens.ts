/** Unsigned JWTs with a valid claim set, for tests of the SDK's own token handling (it never verifies). */
export function fakeAccessToken(
  overrides: Record<string, unknown> = {},
  options: { now?: number; lifetimeSeconds?: number } = {},
): string {
  const nowSeconds = Math.floor((options.now ?? Date.now()) / 1000);
  const claims = {
    sub: "7d7b9a9e-1111-4a5b-8c9d-000000000001",
    iat: nowSeconds,
    exp: nowSeconds + (options.lifetimeSeconds ?? 600),
    iss: "http://localhost/api/v1/projects/p",
    aud: "p",
    project_id: "p",
    branch_id: "main",
    refresh_token_id: "7d7b9a9e-1111-4a5b-8c9d-000000000002",
    role: "authenticated",
    name: null,
    email: "a@example.com",
    email_verified: true,
    selected_team_id: null,
    signed_up_at: nowSeconds,
    is_anonymous: false,
    is_restricted: false,
    restricted_reason: null,
    requires_totp_mfa: false,
    ...overrides,
  };
  const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");
  return `${encode({ alg: "ES256", kid: "test" })}.${encode(claims)}.c2lnbmF0dXJl`;
}

/** A real token re-encoded with other claims (its signature no longer matches: the server will refuse it). */
export function withClaims(token: string, changes: Record<string, unknown>): string {
  const [header, payload] = token.split(".");
  const claims = { ...JSON.parse(Buffer.from(payload!, "base64url").toString("utf8")), ...changes };
  return `${header}.${Buffer.from(JSON.stringify(claims)).toString("base64url")}.c2lnbmF0dXJl`;
}
