// Gatehouse as bench/compare.mjs runs it: the built server in production mode on its own PostgreSQL database, one
// ordinary project made through the API the way the dashboard makes one, and the four paths as the SDK calls them.
import { randomBytes } from "node:crypto";
import http from "node:http";
import { join } from "node:path";
import { send, sendOk } from "./load.mjs";
import { startServer } from "./processes.mjs";

const PASSWORD = "correct horse battery staple";
/** How many users the many-users sign-in run spreads over (issue 38, item 3). */
export const MANY_USERS = 1000;

/** The environment of a production instance on `databaseUrl`; none of the caller's own Gatehouse settings leak in. */
export function gatehouseEnv({ port, databaseUrl, dataDir }) {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(
      ([name]) => !name.startsWith("GATEHOUSE_") && !name.startsWith("STACK_") && name !== "DATABASE_URL",
    ),
  );
  const key = (prefix) => prefix + randomBytes(24).toString("hex");
  return {
    ...env,
    NODE_ENV: "production",
    PORT: String(port),
    GATEHOUSE_BASE_URL: `http://127.0.0.1:${port}`,
    GATEHOUSE_SECRET: randomBytes(32).toString("base64url"),
    DATABASE_URL: databaseUrl,
    GATEHOUSE_DATA_DIR: dataDir,
    GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY: key("pck_"),
    GATEHOUSE_SEED_INTERNAL_SECRET_SERVER_KEY: key("ssk_"),
    GATEHOUSE_SEED_INTERNAL_SUPER_SECRET_ADMIN_KEY: key("sak_"),
    GATEHOUSE_SEED_ADMIN_EMAIL: "owner@example.com",
    GATEHOUSE_SEED_ADMIN_PASSWORD: PASSWORD,
    // The many-users sign-in run gives each user an address of their own, as a proxy would (x-forwarded-for);
    // the other paths send no such header and count from the socket's address.
    GATEHOUSE_TRUST_PROXY: "1",
    // Served, as an operator's scrape would have it: the tail run reads GC and event-loop figures from it.
    GATEHOUSE_METRICS: "public",
  };
}

export function startGatehouse(root, env) {
  return startServer({
    cwd: root,
    env,
    port: Number(env.PORT),
    args: ["--enable-source-maps", join(root, "packages/server/dist/main.js")],
  });
}

/**
 * The seeded owner signs in to `internal`, makes a team and a project with keys, and lets the project sign in with
 * passwords. The rate limits the benchmark would hit at once (all its traffic comes from one address) are raised
 * to the most the config allows; they are still counted in PostgreSQL on every request, as in production.
 */
async function createProject(agent, baseUrl, env) {
  const internal = {
    "x-stack-project-id": "internal",
    "x-stack-access-type": "client",
    "x-stack-publishable-client-key": env.GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY,
    "content-type": "application/json",
  };
  const call = (path, headers, body, method = "POST") =>
    sendOk(agent, baseUrl, { method, path: `/api/v1${path}`, headers, body: JSON.stringify(body) });
  const owner = (
    await call("/auth/password/sign-in", internal, {
      email: env.GATEHOUSE_SEED_ADMIN_EMAIL,
      password: env.GATEHOUSE_SEED_ADMIN_PASSWORD,
    })
  ).body;
  const asOwner = { ...internal, "x-stack-access-token": owner.access_token };
  const team = (await call("/teams", asOwner, { display_name: "Bench", creator_user_id: "me" })).body;
  const project = (
    await call("/internal/projects", asOwner, { display_name: "Bench", owner_team_id: team.id })
  ).body;
  const admin = {
    "x-stack-project-id": project.id,
    "x-stack-access-type": "admin",
    "x-stack-admin-access-token": owner.access_token,
    "content-type": "application/json",
  };
  const keys = (
    await call("/internal/api-keys", admin, {
      description: "bench",
      expires_at_millis: Date.now() + 86_400_000,
      has_publishable_client_key: true,
      has_secret_server_key: false,
      has_super_secret_admin_key: false,
    })
  ).body;
  const unlimited = { limit: 1_000_000 };
  await call(
    "/internal/config/override/environment",
    admin,
    {
      config_override_string: JSON.stringify({
        "auth.password.allowSignIn": true,
        "gatehouse.rateLimits.signUpPerIp": unlimited,
        "gatehouse.rateLimits.signInPerIp": unlimited,
        "gatehouse.rateLimits.signInPerAccount": unlimited,
        "gatehouse.rateLimits.signInPerAccountFromIp": unlimited,
      }),
    },
    "PATCH",
  );
  return { projectId: project.id, publishableClientKey: keys.publishable_client_key };
}

/**
 * The four measured paths of one running Gatehouse. Sign-up makes the accounts sign-in uses; sign-in makes the
 * sessions the session read and the refresh use (a few hundred, each reused round-robin).
 */
export async function gatehousePaths(agent, baseUrl, env) {
  const { projectId, publishableClientKey } = await createProject(agent, baseUrl, env);
  const client = {
    "x-stack-project-id": projectId,
    "x-stack-access-type": "client",
    "x-stack-publishable-client-key": publishableClientKey,
  };
  const json = { ...client, "content-type": "application/json" };
  const accounts = [];
  const sessions = [];
  let signUps = 0;
  let signIns = 0;
  let distinctSignIns = 0;
  let reads = 0;
  let refreshes = 0;
  return {
    async signUp(agent) {
      const email = `user-${signUps++}@example.com`;
      await sendOk(agent, baseUrl, {
        method: "POST",
        path: "/api/v1/auth/password/sign-up",
        headers: json,
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      accounts.push(email);
    },
    async signIn(agent) {
      const email = accounts[signIns++ % accounts.length];
      const { body } = await sendOk(agent, baseUrl, {
        method: "POST",
        path: "/api/v1/auth/password/sign-in",
        headers: json,
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      if (sessions.length < 512) sessions.push(body);
    },
    /** Signs up accounts until there are `count` (16 at a time), for the many-users sign-in run. */
    async topUpAccounts(count) {
      const setup = new http.Agent({ keepAlive: true, maxSockets: 16 });
      let inFlightSignUps = 0;
      try {
        const worker = async () => {
          while (accounts.length + inFlightSignUps < count) {
            inFlightSignUps++;
            try {
              await this.signUp(setup);
            } finally {
              inFlightSignUps--;
            }
          }
        };
        await Promise.all(Array.from({ length: 16 }, worker));
      } finally {
        setup.destroy();
      }
    },
    // Password sign-in over the first 1,000 accounts in turn, each from its own address (10.0.x.y), as real
    // traffic is: the per-address and per-account rate-limit rows are then 1,000 rows, not one row every client
    // contends on.
    async signInDistinct(agent) {
      const index = distinctSignIns++ % Math.min(MANY_USERS, accounts.length);
      await sendOk(agent, baseUrl, {
        method: "POST",
        path: "/api/v1/auth/password/sign-in",
        headers: { ...json, "x-forwarded-for": `10.0.${index >> 8}.${index & 255}` },
        body: JSON.stringify({ email: accounts[index], password: PASSWORD }),
      });
    },
    async sessionRead(agent) {
      const session = sessions[reads++ % sessions.length];
      const { body } = await sendOk(agent, baseUrl, {
        path: "/api/v1/users/me",
        headers: { ...client, "x-stack-access-token": session.access_token },
      });
      if (body.id !== session.user_id) throw new Error("/users/me answered another user");
    },
    // The refresh grant at the OAuth token endpoint, sent as the SDK sends it: form-encoded, no x-stack headers.
    async refresh(agent) {
      const session = sessions[refreshes++ % sessions.length];
      const answer = await send(agent, baseUrl, {
        method: "POST",
        path: "/api/v1/auth/oauth/token",
        headers: {
          "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
          accept: "application/json",
        },
        body: new URLSearchParams({
          refresh_token: session.refresh_token,
          grant_type: "refresh_token",
          client_id: projectId,
          client_secret: publishableClientKey,
        }).toString(),
      });
      if (answer.status !== 200 || !JSON.parse(answer.text).access_token) {
        throw new Error(`refresh grant: ${answer.status} ${answer.text.slice(0, 300)}`);
      }
    },
  };
}
