/// <reference path="./oidc-provider.d.ts" />
/**
 * The development OpenID provider: a real OAuth 2 / OpenID Connect server (oidc-provider) that the Gatehouse
 * process starts on a loopback port the first time a "shared" OAuth provider is used without server-operator
 * credentials. Its sign-in page asks for an email address; the address becomes the account id (`sub`), and consent
 * is given automatically. So OAuth sign-in works on a fresh machine with nothing set up. Anyone can type anyone's
 * address, so the email it claims is never verified, Gatehouse never matches it to an existing account
 * (`providerEmailTrust` in sign-in-user.ts), and it is not the typed address but a marked one (`devProviderEmail`),
 * so that no user it creates shares a real user's address.
 *
 * It is never started in production (see `devOAuthEnabled`), and is imported lazily so production never loads it.
 */
import { randomBytes } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair } from "jose";
import type { Provider, ProviderContext } from "oidc-provider";
import type { ServerEnv } from "../../env.ts";
import { devErrorPage, devLoginPage } from "./dev-provider-page.ts";
import { createDevProviderAdapter, type DevClientRegistry } from "./dev-provider-store.ts";

/** Scopes the dev provider grants. `dev:read`/`dev:write` stand in for provider-specific extra scopes. */
export const DEV_PROVIDER_SCOPES = ["openid", "offline_access", "email", "profile", "dev:read", "dev:write"];
/** What Gatehouse asks the dev provider for: everything a sign-in needs, plus a refresh token. */
export const DEV_PROVIDER_DEFAULT_SCOPES = ["openid", "email", "profile", "offline_access"];

export type DevOAuthProvider = {
  issuer: string;
  /** Registers `redirectUri` for the client `clientId` (created on first use) and returns its credentials. */
  registerClient: (clientId: string, redirectUri: string) => { clientId: string; clientSecret: string };
};

/**
 * The mark on every address the dev provider claims: a subdomain of `.invalid`, the top-level domain reserved never
 * to resolve (RFC 6761), so no mail is ever delivered there.
 */
export const DEV_PROVIDER_EMAIL_SUFFIX = ".dev-oauth.invalid";
/** Longest address the sign-in page takes: marked, it must still fit an email's 254 characters. */
const MAX_TYPED_EMAIL_LENGTH = 254 - DEV_PROVIDER_EMAIL_SUFFIX.length;

/**
 * The email the dev provider claims for a typed address: `ada@example.com` becomes
 * `ada@example.com.dev-oauth.invalid`. Still readable as who the developer meant, but never equal to a real user's
 * address, so a later flow that goes by address (an invitation to `ada@example.com`, a sign-in code, an
 * email-first sign-in) can never take the test account for the real one, or the other way round.
 */
export function devProviderEmail(typed: string): string {
  return `${typed}${DEV_PROVIDER_EMAIL_SUFFIX}`;
}

/** Whether shared providers without credentials fall back to the dev provider (never in production). */
export function devOAuthEnabled(env: ServerEnv): boolean {
  return env.isDevelopment && env.devOAuthProvider !== false;
}

let started: Promise<DevOAuthProvider> | null = null;

/** The process's dev provider, started on first call. */
export function getDevOAuthProvider(): Promise<DevOAuthProvider> {
  started ??= startDevOAuthProvider().catch((error) => {
    started = null;
    throw error;
  });
  return started;
}

const MAX_FORM_BYTES = 8 * 1024;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_FORM_BYTES) break;
    chunks.push(chunk as Buffer);
  }
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

function html(ctx: ProviderContext, status: number, body: string): void {
  ctx.status = status;
  ctx.type = "html";
  ctx.body = body;
}

function redirect(ctx: ProviderContext, location: string): void {
  ctx.status = 303;
  ctx.set("location", location);
  ctx.body = "";
}

/** Login and consent, in one page: an email address signs in, and every requested scope is granted. */
function interactionMiddleware(provider: Provider) {
  return async (ctx: ProviderContext, next: () => Promise<void>) => {
    const match = /^\/interaction\/([A-Za-z0-9_-]+)$/.exec(ctx.path);
    if (!match) return next();
    ctx.set("cache-control", "no-store");
    const details = await provider.interactionDetails(ctx.req, ctx.res).catch(() => null);
    if (!details || details.uid !== match[1]) {
      return html(
        ctx,
        400,
        devErrorPage("This sign-in attempt has expired. Start signing in again from the app."),
      );
    }
    const clientId = details.params.client_id ?? "app";

    const finish = async (accountId: string) => {
      const grant = new provider.Grant({ accountId, clientId });
      grant.addOIDCScope(details.params.scope ?? "openid");
      const grantId = await grant.save();
      const to = await provider.interactionResult(
        ctx.req,
        ctx.res,
        { login: { accountId, remember: false }, consent: { grantId } },
        { mergeWithLastSubmission: false },
      );
      redirect(ctx, to);
    };

    if (ctx.method === "GET") {
      // Only sign-in needs the user; a pending consent alone is given automatically.
      if (details.prompt.name !== "login" && details.session?.accountId)
        return finish(details.session.accountId);
      return html(ctx, 200, devLoginPage({ uid: details.uid, clientId }));
    }
    if (ctx.method !== "POST") return html(ctx, 405, devErrorPage("Method not allowed."));

    const form = await readForm(ctx.req);
    if (form.get("action") === "cancel") {
      const to = await provider.interactionResult(
        ctx.req,
        ctx.res,
        { error: "access_denied", error_description: "The user cancelled the sign-in." },
        { mergeWithLastSubmission: false },
      );
      return redirect(ctx, to);
    }
    const email = (form.get("email") ?? "").trim().toLowerCase();
    if (email.length > MAX_TYPED_EMAIL_LENGTH || !/^[^\s@]+@[^\s@]+$/.test(email)) {
      return html(
        ctx,
        400,
        devLoginPage({ uid: details.uid, clientId, email, error: "Please type an email address." }),
      );
    }
    return finish(email);
  };
}

/**
 * oidc-provider 9 prints "oidc-provider WARNING: Unsupported runtime…" with console.warn when its module is first
 * evaluated on a Node.js LTS older than 22, and offers no option to turn it off. Gatehouse supports Node 20.19
 * (package.json `engines`), where the few features this development stand-in uses work and are tested, so the
 * notice would only alarm. While the module loads, and only then, that one line is dropped; anything else the
 * library says, and any other console.warn in the meantime, goes through.
 */
async function importOidcProvider(): Promise<typeof import("oidc-provider")> {
  const warn = console.warn;
  console.warn = (...args: unknown[]) => {
    const notice =
      typeof args[0] === "string" && args[0].includes("oidc-provider WARNING: Unsupported runtime.");
    if (!notice) warn.apply(console, args);
  };
  try {
    return await import("oidc-provider");
  } finally {
    console.warn = warn;
  }
}

/**
 * How a stand-in differs from the process's own development provider: tests also play the reference's mock OpenID
 * server with it (a fixed client secret, client_secret_basic, a userinfo of `sub` alone), as CI setups do.
 */
export type OidcStandInOptions = {
  clientSecret?: string;
  tokenEndpointAuthMethod?: DevClientRegistry["tokenEndpointAuthMethod"];
  /** The claims of the account `sub` (the address typed in); default: the address as an unverified email. */
  claimsOf?: (sub: string) => Record<string, unknown>;
};

function startDevOAuthProvider(): Promise<DevOAuthProvider> {
  return startOidcStandIn();
}

/** A real OpenID provider on a loopback port whose sign-in page takes any email address (see the file comment). */
export async function startOidcStandIn(options: OidcStandInOptions = {}): Promise<DevOAuthProvider> {
  const { default: OidcProvider } = await importOidcProvider();
  const registry: DevClientRegistry = {
    clients: new Map(),
    tokenEndpointAuthMethod: options.tokenEndpointAuthMethod ?? "client_secret_post",
  };
  const clientSecret = options.clientSecret ?? randomBytes(24).toString("base64url");
  // The stand-in's own users carry a marked address (devProviderEmail), never one an existing user may hold.
  const claimsOf =
    options.claimsOf ?? ((sub: string) => ({ sub, email: devProviderEmail(sub), email_verified: false }));

  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  // A helper for development: it must never be what keeps the process alive.
  server.unref();
  server.keepAliveTimeout = 1000;
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const { privateKey } = await generateKeyPair("RS256", { extractable: true });
  const signingKey = { ...(await exportJWK(privateKey)), kid: "gatehouse-dev", alg: "RS256", use: "sig" };

  const provider = new OidcProvider(issuer, {
    adapter: createDevProviderAdapter(registry),
    findAccount: async (_ctx: unknown, sub: string) => ({
      accountId: sub,
      claims: async () => claimsOf(sub),
    }),
    claims: { openid: ["sub"], email: ["email", "email_verified"], profile: ["name", "picture"] },
    scopes: DEV_PROVIDER_SCOPES,
    responseTypes: ["code"],
    pkce: { required: () => true },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    cookies: { keys: [randomBytes(32).toString("base64url")] },
    jwks: { keys: [signingKey] },
    clientBasedCORS: () => false,
    ttl: {
      AccessToken: 3600,
      AuthorizationCode: 60,
      IdToken: 3600,
      RefreshToken: 14 * 24 * 3600,
      Interaction: 3600,
      Session: 24 * 3600,
      Grant: 14 * 24 * 3600,
    },
    renderError: async (ctx: ProviderContext, out: Record<string, string>) => {
      html(ctx, ctx.status || 400, devErrorPage(`${out.error ?? "error"}: ${out.error_description ?? ""}`));
    },
  });
  provider.use(interactionMiddleware(provider));
  server.on("request", provider.callback());

  return {
    issuer,
    registerClient: (clientId, redirectUri) => {
      const client = registry.clients.get(clientId) ?? { secret: clientSecret, redirectUris: new Set() };
      client.redirectUris.add(redirectUri);
      registry.clients.set(clientId, client);
      return { clientId, clientSecret: client.secret };
    },
  };
}
