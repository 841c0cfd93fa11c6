/**
 * Enumerates every registered route and checks that each refuses every credential class below its level.
 * New routes are covered by this file without anyone writing a new test.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createKeySet, updateKeySet } from "../features/project-keys/service.ts";
import { apiRoutes as featureRoutes } from "../features/routes.ts";
import { createTestServer, protocolHeaders, type TestProject, type TestServer } from "../testing/harness.ts";
import { ACCESS_TYPES, type AccessType } from "./access-type.ts";

/** Routes that read no project auth on purpose. Adding one here is a security decision: say why. */
const PUBLIC_ROUTES = new Set([
  "GET ", // welcome text; reports how the caller authenticated
  "GET /openapi.json",
  "GET /docs",
  "GET /projects/:project_id/.well-known/jwks.json", // public keys are public
  "POST /auth/oauth/token", // OAuth clients authenticate with client_id/client_secret in the body
  "GET /auth/oauth/authorize/:provider_id", // the app authenticates with client_id/client_secret in the query
  "GET /auth/oauth/callback/:provider_id", // reached by the provider's redirect; checked by inner state + cookie
  "POST /auth/oauth/callback/:provider_id", // the same, for providers that call back with a form POST
  "POST /check-feature-support", // says a feature is unsupported; reads no credentials and nothing of the project
  "POST /check-version", // compares an SDK version with the server's; no project involved
  "GET /internal/component-versions", // fixed versions of the page components; no project involved
  "GET /internal/backend-urls", // this API's own addresses
  "POST /internal/feedback", // credentials optional (none: the internal project); rate-limited per IP
  "GET /internal/email-queue-step", // the cron's bearer CRON_SECRET is the credential
  "POST /internal/failed-emails-digest", // the same
  "GET /emails/unsubscribe-link", // the link in an email: its one-time code is the credential
  "POST /emails/unsubscribe-link", // a mail client's one-click unsubscribe (RFC 8058) with the same link
  // The purchase page's calls: the one-time purchase code (only its hash is stored) is the credential.
  "POST /payments/purchases/validate-code",
  "GET /payments/purchases/validate-code",
  "POST /internal/payments/test-mode-purchase-session",
  "POST /payments/purchases/purchase-session",
  "POST /payments/purchases/checkout-session",
  "POST /integrations/stripe/webhooks", // Stripe's signature over the exact body is the credential
]);

const keyHeader: Record<AccessType, string> = {
  client: "x-stack-publishable-client-key",
  server: "x-stack-secret-server-key",
  admin: "x-stack-super-secret-admin-key",
};
const invalidKeyError: Record<AccessType, string> = {
  client: "INVALID_PUBLISHABLE_CLIENT_KEY",
  server: "INVALID_SECRET_SERVER_KEY",
  admin: "INVALID_SUPER_SECRET_ADMIN_KEY",
};

let server: TestServer;
let project: TestProject;
let revokedKeys: Record<AccessType, string>;
let expiredKeys: Record<AccessType, string>;

const guardedRoutes = featureRoutes.filter((route) => route.access !== "public");

function concretePath(path: string): string {
  return `/api/v1${path.replace(/:([A-Za-z0-9_]+)/g, "00000000-0000-4000-8000-000000000000")}`;
}

async function send(route: (typeof guardedRoutes)[number], headers: Record<string, string>) {
  return server.request(concretePath(route.path), { method: route.method, headers });
}

function asKeyRecord(keys: {
  publishableClientKey?: string;
  secretServerKey?: string;
  superSecretAdminKey?: string;
}) {
  return {
    client: keys.publishableClientKey!,
    server: keys.secretServerKey!,
    admin: keys.superSecretAdminKey!,
  };
}

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Route guard project");
  const all = { hasPublishableClientKey: true, hasSecretServerKey: true, hasSuperSecretAdminKey: true };
  const revoked = await createKeySet(server.deps.db, project.id, {
    description: "revoked",
    expiresAt: null,
    ...all,
  });
  await updateKeySet(server.deps.db, project.id, revoked.row.id, { revoke: true });
  revokedKeys = asKeyRecord(revoked.keys);
  const expired = await createKeySet(server.deps.db, project.id, {
    description: "expired",
    expiresAt: new Date(Date.now() - 1000),
    ...all,
  });
  expiredKeys = asKeyRecord(expired.keys);
});
afterAll(() => server.close());

it("has only the intended public routes", () => {
  const publicRoutes = featureRoutes.filter((r) => r.access === "public").map((r) => `${r.method} ${r.path}`);
  expect(new Set(publicRoutes)).toEqual(PUBLIC_ROUTES);
});

it("declares every route once", () => {
  const keys = featureRoutes.map((r) => `${r.method} ${r.path}`);
  expect(new Set(keys).size).toBe(keys.length);
});

describe.each(guardedRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
  "%s",
  (_name, route) => {
    const allowed = route.access as readonly AccessType[];
    const lowest = allowed[0]!;

    it("needs an access type", async () => {
      const response = await send(route, {});
      expect(response.headers.get("x-stack-known-error")).toBe("ACCESS_TYPE_REQUIRED");
    });

    it("refuses an unknown project", async () => {
      const response = await send(route, {
        ...protocolHeaders({ projectId: "7d1f6c2e-0b3a-4e5f-8a9b-0c1d2e3f4a5b", accessType: lowest }),
        [keyHeader[lowest]]: project.keys.superSecretAdminKey,
      });
      expect(response.headers.get("x-stack-known-error")).toBe("CURRENT_PROJECT_NOT_FOUND");
    });

    it.each(allowed)("refuses a wrong, a revoked and an expired %s key", async (accessType) => {
      for (const key of ["wrong-key", revokedKeys[accessType], expiredKeys[accessType]]) {
        const response = await send(route, { ...project.headers(accessType), [keyHeader[accessType]]: key });
        expect(response.status, `key ${key}`).toBe(401);
        expect(response.headers.get("x-stack-known-error")).toBe(invalidKeyError[accessType]);
      }
    });

    // Routes that also take a bearer token (the webhook portal's) refuse a wrong one, and one that is not theirs.
    if (route.bearerAuth) {
      it("refuses a wrong bearer token", async () => {
        for (const token of [
          "wrong-token",
          project.keys.superSecretAdminKey,
          `ghwp_${"A".repeat(40)}.${"B".repeat(43)}`,
        ]) {
          const response = await send(route, { authorization: `Bearer ${token}` });
          expect(response.status, token).toBe(401);
        }
      });
    }

    const below = ACCESS_TYPES.filter((type) => !allowed.includes(type));
    if (below.length > 0) {
      it.each(below)("refuses %s access", async (accessType) => {
        const response = await send(route, project.headers(accessType));
        expect(response.status).toBe(401);
        expect(response.headers.get("x-stack-known-error")).toBe("INSUFFICIENT_ACCESS_TYPE");
      });
    }
  },
);
