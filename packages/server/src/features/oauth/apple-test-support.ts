/**
 * A local stand-in for Sign in with Apple, for tests: its discovery document, its keys (JWKS), an authorization
 * step that approves a user at once, and a token endpoint that does what Apple's does with a client secret: checks
 * that it is an ES256 JWT signed with the team's key, naming that key, the team, the Services ID and Apple, and
 * not living longer than Apple allows. It answers with an ID token signed with its own RS256 key, as Apple does, and
 * signs identity tokens as a native app gets them.
 */
import { createHash, randomBytes } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import {
  decodeProtectedHeader,
  exportJWK,
  exportPKCS8,
  generateKeyPair,
  type JWTPayload,
  jwtVerify,
  SignJWT,
} from "jose";

/** Apple ids are 10 upper-case letters and digits. */
export const APPLE_TEAM_ID = "TEAM123456";
export const APPLE_KEY_ID = "KEY1234567";
/** Apple's limit on a client secret's lifetime. */
const MAX_SECRET_SECONDS = 15_777_000;

export type TokenRequestRecord =
  | { ok: true; header: Record<string, unknown>; claims: JWTPayload }
  | { ok: false; reason: string };

type PendingCode = { clientId: string; redirectUri: string; challenge: string; sub: string; email: string };

export type IdTokenOptions = {
  /** Sign with a key the JWKS does not have (under the same key id). */
  forged?: boolean;
  claims?: Record<string, unknown>;
};

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json", "cache-control": "no-store" });
  res.end(JSON.stringify(body));
}

export async function startAppleStandIn() {
  const team = await generateKeyPair("ES256", { extractable: true });
  const signing = await generateKeyPair("RS256", { extractable: true });
  const forger = await generateKeyPair("RS256", { extractable: true });
  const jwk = { ...(await exportJWK(signing.publicKey)), kid: "apple-stand-in", alg: "RS256", use: "sig" };
  const codes = new Map<string, PendingCode>();
  const tokenRequests: TokenRequestRecord[] = [];
  let nextIdToken: IdTokenOptions = {};
  const counts = { keyFetches: 0 };

  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;

  const identityToken = async (claims: Record<string, unknown>, options: IdTokenOptions = {}) => {
    const now = Math.floor(Date.now() / 1000);
    const defaults = { iss: issuer, iat: now, exp: now + 600, auth_time: now };
    return new SignJWT({ ...defaults, email_verified: "true", is_private_email: "false", ...claims })
      .setProtectedHeader({ alg: "RS256", kid: "apple-stand-in" })
      .sign(options.forged ? forger.privateKey : signing.privateKey);
  };

  /** Apple's checks of a client secret; the reason of the first that fails. */
  const checkClientSecret = async (secret: string, clientId: string): Promise<TokenRequestRecord> => {
    try {
      const header = decodeProtectedHeader(secret);
      if (header.alg !== "ES256") return { ok: false, reason: `alg ${header.alg}` };
      if (header.kid !== APPLE_KEY_ID) return { ok: false, reason: `kid ${header.kid}` };
      const { payload } = await jwtVerify(secret, team.publicKey, {
        algorithms: ["ES256"],
        issuer: APPLE_TEAM_ID,
        audience: issuer,
        subject: clientId,
        requiredClaims: ["iat", "exp"],
      });
      if (payload.exp! - payload.iat! > MAX_SECRET_SECONDS) return { ok: false, reason: "lives too long" };
      return { ok: true, header: header as Record<string, unknown>, claims: payload };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : String(error) };
    }
  };

  const token = async (req: IncomingMessage, res: ServerResponse) => {
    const form = await readForm(req);
    const clientId = form.get("client_id") ?? "";
    const check = await checkClientSecret(form.get("client_secret") ?? "", clientId);
    tokenRequests.push(check);
    if (!check.ok) return json(res, 400, { error: "invalid_client" });
    const pending = codes.get(form.get("code") ?? "");
    codes.delete(form.get("code") ?? "");
    const verifier = form.get("code_verifier") ?? "";
    const challenge = createHash("sha256").update(verifier).digest("base64url");
    if (
      form.get("grant_type") !== "authorization_code" ||
      !pending ||
      pending.clientId !== clientId ||
      pending.redirectUri !== form.get("redirect_uri") ||
      pending.challenge !== challenge
    ) {
      return json(res, 400, { error: "invalid_grant" });
    }
    const idToken = await identityToken(
      { sub: pending.sub, email: pending.email, aud: clientId, ...nextIdToken.claims },
      nextIdToken,
    );
    return json(res, 200, {
      access_token: randomBytes(16).toString("hex"),
      token_type: "Bearer",
      expires_in: 3600,
      refresh_token: randomBytes(16).toString("hex"),
      id_token: idToken,
    });
  };

  http.on("request", (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    if (path === "/.well-known/openid-configuration") {
      return json(res, 200, {
        issuer,
        authorization_endpoint: `${issuer}/auth/authorize`,
        token_endpoint: `${issuer}/auth/token`,
        jwks_uri: `${issuer}/auth/keys`,
        response_types_supported: ["code"],
        response_modes_supported: ["query", "fragment", "form_post"],
        subject_types_supported: ["pairwise"],
        id_token_signing_alg_values_supported: ["RS256"],
        scopes_supported: ["openid", "email", "name"],
        token_endpoint_auth_methods_supported: ["client_secret_post"],
      });
    }
    if (path === "/auth/keys") {
      counts.keyFetches += 1;
      return json(res, 200, { keys: [jwk] });
    }
    if (path === "/auth/token" && req.method === "POST") {
      token(req, res).catch((error) => json(res, 500, { error: String(error) }));
      return;
    }
    json(res, 404, { error: "not_found" });
  });

  return {
    issuer,
    teamPrivateKeyPem: await exportPKCS8(team.privateKey),
    tokenRequests,
    /** How often the keys were fetched: a verifier that caches them fetches them once. */
    counts,
    identityToken,
    /** The ID token the token endpoint hands out next: forged or with claims changed. */
    setNextIdToken(options: IdTokenOptions) {
      nextIdToken = options;
    },
    /**
     * What Apple's page does when the user agrees: a code for the authorization request at `providerUrl`, and the
     * fields Apple form-posts back to the request's redirect URI.
     */
    approve(providerUrl: string, user: { sub: string; email: string }) {
      const request = new URL(providerUrl).searchParams;
      const code = randomBytes(16).toString("hex");
      codes.set(code, {
        clientId: request.get("client_id") ?? "",
        redirectUri: request.get("redirect_uri") ?? "",
        challenge: request.get("code_challenge") ?? "",
        ...user,
      });
      return { code, state: request.get("state") ?? "", redirectUri: request.get("redirect_uri") ?? "" };
    },
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

export type AppleStandIn = Awaited<ReturnType<typeof startAppleStandIn>>;
