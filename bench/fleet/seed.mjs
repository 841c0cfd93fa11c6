// The fleet's data: one project made through the API the way an owner makes one (so its config, keys and webhook
// endpoint are exactly what the server writes), copied in SQL into as many projects as asked, then users spread
// over them in set-based SQL. Row-by-row creation of a million users through the API would take hours of argon2id
// alone; here every user shares one hash, computed once with the server's library and parameters, so sign-in
// verifies it like any other.
import { createHash, randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import { join } from "node:path";
import { gatehouseArgon2Parameters } from "../compare/limits.mjs";
import { sendOk } from "../compare/load.mjs";

export const PASSWORD = "correct horse battery staple";

const FIRST_NAMES = `Olivia Liam Emma Noah Amelia Oliver Sophia Elijah Mia Lucas Ava Mateo
  Isabella Levi Aria Ezra Chloe Kai Nora Leo Hana Yusuf Priya Jonas`.split(/\s+/);
const LAST_NAMES = `Smith Garcia Nguyen Schulz Kowalski Rossi Tanaka Okafor Silva Johansson
  Dubois Haddad Petrov Kim Moreau Fischer Novak Costa Ivanova Brown`.split(/\s+/);
export const SEARCH_TERMS = ["garcia", "tanaka", "olivia", "kai", "user12", "fleet.example"];

/** Every `WEBHOOK_EVERY`th project has a webhook endpoint: most projects have none, some do. */
export const WEBHOOK_EVERY = 10;

/** The seeded user number `n` (0-based): its ids are derived from `n`, so the load generator needs no lookup. */
export function seededUser(n, projectIds) {
  return {
    id: uuidFrom(`fleet-user-${n}`),
    email: `user${n}@fleet.example`,
    projectId: projectIds[n % projectIds.length],
  };
}

/**
 * A version-4-shaped UUID from the md5 of `text` (the API refuses ids whose version and variant digits are not a
 * real UUID's); `uuidSql` computes the same in PostgreSQL, so SQL and JavaScript agree on the seeded ids.
 */
export function uuidFrom(text) {
  const hex = createHash("md5").update(text).digest("hex");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-8${hex.slice(17, 20)}-${hex.slice(20)}`;
}

/** `uuidFrom` as an SQL expression of the text expression `text`. */
function uuidSql(text) {
  const hex = `md5(${text})`;
  return `(substr(${hex}, 1, 12) || '4' || substr(${hex}, 14, 3) || '8' || substr(${hex}, 18))::uuid`;
}

/** One argon2id hash of PASSWORD with the server's own library and parameters. */
export async function passwordHash(root) {
  const argon2 = createRequire(join(root, "packages/server/package.json"))("@node-rs/argon2");
  return argon2.hash(PASSWORD, { ...gatehouseArgon2Parameters(root), algorithm: 2 });
}

/**
 * Through the running seed server: the owner signs in to `internal`, makes a team and a project, its key set
 * (client, server and admin keys), the config every fleet project gets (password sign-in, the owner's SMTP server
 * at the sink, rate limits raised because all the load comes from one address) and a webhook endpoint at the
 * receiver. The seed server runs in development mode, where a loopback endpoint may be saved.
 */
export async function makeTemplateProject(agent, baseUrl, env, { smtpPort, webhookUrl }) {
  const internal = {
    "x-stack-project-id": "internal",
    "x-stack-access-type": "client",
    "x-stack-publishable-client-key": env.GATEHOUSE_SEED_INTERNAL_PUBLISHABLE_CLIENT_KEY,
    "content-type": "application/json",
  };
  const call = async (path, headers, body, method = "POST") =>
    (await sendOk(agent, baseUrl, { method, path: `/api/v1${path}`, headers, body: JSON.stringify(body) }))
      .body;
  const owner = await call("/auth/password/sign-in", internal, {
    email: env.GATEHOUSE_SEED_ADMIN_EMAIL,
    password: env.GATEHOUSE_SEED_ADMIN_PASSWORD,
  });
  const asOwner = { ...internal, "x-stack-access-token": owner.access_token };
  const team = await call("/teams", asOwner, { display_name: "Fleet", creator_user_id: "me" });
  const project = await call("/internal/projects", asOwner, {
    display_name: "Fleet 0",
    owner_team_id: team.id,
  });
  const admin = {
    "x-stack-project-id": project.id,
    "x-stack-access-type": "admin",
    "x-stack-admin-access-token": owner.access_token,
    "content-type": "application/json",
  };
  const keys = await call("/internal/api-keys", admin, {
    description: "fleet bench",
    expires_at_millis: Date.now() + 30 * 86_400_000,
    has_publishable_client_key: true,
    has_secret_server_key: true,
    has_super_secret_admin_key: true,
  });
  const unlimited = { limit: 1_000_000 };
  await call(
    "/internal/config/override/environment",
    admin,
    {
      config_override_string: JSON.stringify({
        "auth.password.allowSignIn": true,
        "emails.server": {
          isShared: false,
          host: "127.0.0.1",
          port: smtpPort,
          senderEmail: "fleet@example.com",
        },
        "gatehouse.rateLimits.signUpPerIp": unlimited,
        "gatehouse.rateLimits.signInPerIp": unlimited,
        "gatehouse.rateLimits.signInPerAccount": unlimited,
        "gatehouse.rateLimits.signInPerAccountFromIp": unlimited,
      }),
    },
    "PATCH",
  );
  await call("/webhooks-portal/endpoints", admin, { url: webhookUrl, description: "fleet bench receiver" });
  return {
    projectId: project.id,
    keys: {
      publishableClientKey: keys.publishable_client_key,
      secretServerKey: keys.secret_server_key,
      superSecretAdminKey: keys.super_secret_admin_key,
    },
  };
}

/** Tables a fresh project has rows in, and how each copy is made; anything else found is reported, not copied. */
const PROJECT_TABLES = ["projects", "project_config_overrides", "project_api_key_sets", "webhook_endpoints"];

/**
 * Copies the template project into `count - 1` more (ids made here), the same key set in each: a key is looked up
 * by (project, hash), so one key string serves every project and the generator needs no per-project keys. Only
 * one project in WEBHOOK_EVERY keeps the endpoint. Returns every project id, the template's first.
 */
export async function copyProjects(client, templateId, count) {
  const { rows: present } = await client.query(
    `select c.table_name from information_schema.columns c join information_schema.tables t
       on t.table_name = c.table_name and t.table_schema = c.table_schema
     where c.column_name = 'project_id' and c.table_schema = 'public' and t.table_type = 'BASE TABLE'`,
  );
  const unexpected = [];
  for (const { table_name: table } of present) {
    if (PROJECT_TABLES.includes(table)) continue;
    const { rows } = await client.query(`select count(*)::int as n from ${table} where project_id = $1`, [
      templateId,
    ]);
    if (rows[0].n > 0) unexpected.push(`${table} (${rows[0].n})`);
  }
  const ids = [templateId, ...Array.from({ length: count - 1 }, () => randomUUID())];
  await client.query("create temporary table fleet_projects (n int primary key, id text not null)");
  await client.query(
    "insert into fleet_projects select n::int - 1, id from unnest($1::text[]) with ordinality as t(id, n)",
    [ids],
  );
  await client.query(
    `insert into projects (id, display_name, description, is_production_mode, owner_team_id, onboarding_status, created_at)
     select f.id, 'Fleet ' || f.n, p.description, p.is_production_mode, p.owner_team_id, p.onboarding_status, now()
     from fleet_projects f, projects p where p.id = $1 and f.n > 0`,
    [templateId],
  );
  await client.query(
    `insert into project_config_overrides (project_id, branch_id, level, override, source, updated_at)
     select f.id, o.branch_id, o.level, o.override, o.source, now()
     from fleet_projects f, project_config_overrides o where o.project_id = $1 and f.n > 0`,
    [templateId],
  );
  await client.query(
    `insert into project_api_key_sets (id, project_id, description, expires_at, created_at,
       publishable_client_key_hash, publishable_client_key_last_four, secret_server_key_hash,
       secret_server_key_last_four, super_secret_admin_key_hash, super_secret_admin_key_last_four)
     select gen_random_uuid(), f.id, k.description, k.expires_at, now(), k.publishable_client_key_hash,
       k.publishable_client_key_last_four, k.secret_server_key_hash, k.secret_server_key_last_four,
       k.super_secret_admin_key_hash, k.super_secret_admin_key_last_four
     from fleet_projects f, project_api_key_sets k where k.project_id = $1 and f.n > 0`,
    [templateId],
  );
  await client.query(
    `insert into webhook_endpoints (project_id, id, url, description, event_types, secret_encrypted, enabled)
     select f.id, gen_random_uuid(), w.url, w.description, w.event_types, w.secret_encrypted, w.enabled
     from fleet_projects f, webhook_endpoints w where w.project_id = $1 and f.n > 0 and f.n % ${WEBHOOK_EVERY} = 0`,
    [templateId],
  );
  return { ids, unexpected };
}

/** The secondary indexes of the user tables, dropped while the rows go in and built once after: far faster. */
const USER_TABLES = ["users", "contact_channels", "teams", "team_members"];

/**
 * `userCount` users numbered 0…n-1, user n in project n % projects: a display name from two name lists, the
 * shared password hash, a primary verified email used for sign-in, and a personal team they are a member of and
 * have selected, as a sign-up with the default config leaves them. Foreign keys are not checked while loading
 * (session_replication_role = replica, the way pg_restore loads data); the rows satisfy them by construction.
 */
export async function seedUsers(client, { userCount, hash, onProgress = () => {} }) {
  await client.query("set session_replication_role = replica");
  await client.query("set maintenance_work_mem = '1GB'");
  const { rows: indexes } = await client.query(
    `select i.indexname, i.indexdef from pg_indexes i
     where i.schemaname = 'public' and i.tablename = any($1)
       and not exists (select 1 from pg_constraint c where c.conname = i.indexname)`,
    [USER_TABLES],
  );
  for (const { indexname } of indexes) await client.query(`drop index ${indexname}`);
  const first = `(array[${FIRST_NAMES.map((name) => `'${name}'`).join(",")}])`;
  const last = `(array[${LAST_NAMES.map((name) => `'${name}'`).join(",")}])`;
  const user = uuidSql("'fleet-user-' || g");
  const team = uuidSql("'fleet-team-' || g");
  const chunk = 250_000;
  for (let start = 0; start < userCount; start += chunk) {
    const end = Math.min(start + chunk, userCount) - 1;
    // One statement per table and chunk; the project of user g is row g % projects of fleet_projects.
    const range = `generate_series(${start}, ${end}) g join fleet_projects f on f.n = g % (select count(*) from fleet_projects)`;
    const signedUp = `now() - interval '730 days' * (1 - g::float8 / ${userCount})`;
    await client.query(
      `insert into teams (project_id, id, display_name, created_at)
       select f.id, ${team},
         ${first}[1 + g % ${FIRST_NAMES.length}] || ' ' || ${last}[1 + (g / 7) % ${LAST_NAMES.length}] || '''s Team',
         ${signedUp}
       from ${range}`,
    );
    await client.query(
      `insert into users (project_id, id, display_name, password_hash, selected_team_id, signed_up_at, last_active_at)
       select f.id, ${user},
         ${first}[1 + g % ${FIRST_NAMES.length}] || ' ' || ${last}[1 + (g / 7) % ${LAST_NAMES.length}],
         $1, ${team}, ${signedUp}, now() - interval '60 days' * random()
       from ${range}`,
      [hash],
    );
    await client.query(
      `insert into team_members (project_id, team_id, user_id, created_at)
       select f.id, ${team}, ${user}, ${signedUp}
       from ${range}`,
    );
    await client.query(
      `insert into contact_channels (project_id, id, user_id, type, value, is_verified, is_primary, used_for_auth, created_at)
       select f.id, gen_random_uuid(), ${user}, 'email', 'user' || g || '@fleet.example',
         true, true, true, ${signedUp}
       from ${range}`,
    );
    onProgress(end + 1);
  }
  const indexStarted = performance.now();
  for (const { indexdef } of indexes) await client.query(indexdef);
  const indexSeconds = (performance.now() - indexStarted) / 1000;
  await client.query("set session_replication_role = default");
  for (const table of USER_TABLES) await client.query(`analyze ${table}`);
  await client.query("analyze projects; analyze project_config_overrides; analyze project_api_key_sets");
  return { indexSeconds, indexes: indexes.length };
}
