import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { hash as bcryptHash } from "@node-rs/bcrypt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type ListeningServer, startListeningServer } from "../../../server/src/testing/listening-server.ts";
import { loggedInOwner, tempDir } from "../test-support.ts";

let server: ListeningServer;
let owner: Awaited<ReturnType<typeof loggedInOwner>>;
let projectId: string;
const dir = tempDir("import");

beforeAll(async () => {
  server = await startListeningServer();
  owner = await loggedInOwner(server);
  const created = await owner.run(["projects", "create", "Import", "--json"]);
  projectId = JSON.parse(created.stdout).id;
  const project = await server.request(`/api/v1/internal/config/override/environment`, {
    method: "PATCH",
    headers: {
      "x-stack-project-id": projectId,
      "x-stack-access-type": "admin",
      "x-stack-admin-access-token": owner.accessToken,
    },
    body: { config_override_string: JSON.stringify({ "auth.password.allowSignIn": true }) },
  });
  expect(project.status).toBe(200);
});
afterAll(() => server?.close());

const importFile = (name: string, text: string, args: string[] = []) => {
  writeFileSync(join(dir, name), text);
  return owner.run(["users", "import", join(dir, name), "--project", projectId, ...args]);
};
const signIn = (email: string, password: string) =>
  server.request("/api/v1/auth/password/sign-in", {
    method: "POST",
    headers: { "x-stack-project-id": projectId, "x-stack-access-type": "client" },
    body: { email, password },
  });
async function userCount() {
  const run = await owner.run(["users", "list", "--project", projectId, "--limit", "200", "--json"]);
  return (JSON.parse(run.stdout) as unknown[]).length;
}

describe("gatehouse users import", () => {
  it("imports an Auth0 export whose users sign in with the passwords behind their bcrypt hashes", async () => {
    const lines = await Promise.all(
      ["ann", "bob"].map(async (name) =>
        JSON.stringify({
          user_id: `auth0|${name}`,
          email: `${name}@auth0.example`,
          email_verified: true,
          name: name.toUpperCase(),
          passwordHash: await bcryptHash(`${name}-old-password`, { cost: 4 }),
          app_metadata: { plan: "pro" },
        }),
      ),
    );
    const run = await importFile("auth0.json", `${lines.join("\n")}\n`, ["--from", "auth0", "--json"]);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ imported: 2, skipped: 0 });
    expect((await signIn("ann@auth0.example", "ann-old-password")).status).toBe(200);
    expect((await signIn("bob@auth0.example", "ann-old-password")).status).toBe(400);
    const listed = JSON.parse(
      (await owner.run(["users", "list", "--project", projectId, "--json", "--query", "bob"])).stdout,
    );
    expect(listed[0]).toMatchObject({
      display_name: "BOB",
      server_metadata: { plan: "pro", auth0_user_id: "auth0|bob" },
    });
  });

  it("names malformed rows by line and imports nothing, unless --skip-invalid", async () => {
    const before = await userCount();
    const csv = [
      "primary_email,display_name,password_hash",
      "good@csv.example,Good,",
      "not-an-email,Bad,",
      '"quoted, name@csv.example",Odd,',
      "hash@csv.example,Hash,md5:5f4dcc3b5aa765d61d8327deb882cf99",
      "good@csv.example,Twice,",
    ].join("\n");
    const refused = await importFile("users.csv", csv);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("line 3: primary_email");
    expect(refused.stderr).toContain("line 5: password_hash");
    expect(refused.stderr).toContain("line 6: primary_email good@csv.example is also used by line 2");
    expect(refused.stderr).toContain("Nothing was imported");
    expect(await userCount()).toBe(before);

    const broken = await importFile(
      "broken.jsonl",
      '{"primary_email":"one@jsonl.example"}\n{"primary_email": \n',
    );
    expect(broken.code).toBe(5);
    expect(broken.stderr).toContain("line 2: not valid JSON");
    expect(await userCount()).toBe(before);

    const skipped = await importFile("users.csv", csv, ["--skip-invalid", "--json"]);
    expect(skipped.code, skipped.stderr).toBe(0);
    expect(JSON.parse(skipped.stdout)).toMatchObject({ imported: 1, skipped: 4 });
    expect(await userCount()).toBe(before + 1);
  });

  it("maps Clerk's and Supabase's CSV exports, and their users sign in with their old passwords", async () => {
    const clerkHash = await bcryptHash("clerk-old-password", { cost: 4 });
    const clerk = [
      "id,first_name,last_name,username,primary_email_address,verified_email_addresses,password_digest,password_hasher",
      `user_2abc,Cleo,Kerr,,cleo@clerk.example,cleo@clerk.example,${clerkHash},bcrypt`,
      "user_2def,,,dee,dee@clerk.example,,,",
      "user_2ghi,Gus,,,gus@clerk.example,,abc,md5",
    ].join("\n");
    const refused = await importFile("clerk.csv", clerk, ["--from", "clerk"]);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toContain("line 4: password_hasher md5 is not supported");
    const clerkRun = await importFile("clerk.csv", clerk, ["--from", "clerk", "--skip-invalid", "--json"]);
    expect(clerkRun.code, clerkRun.stderr).toBe(0);
    expect(JSON.parse(clerkRun.stdout)).toMatchObject({ imported: 2, skipped: 1 });
    expect((await signIn("cleo@clerk.example", "clerk-old-password")).status).toBe(200);
    const cleo = JSON.parse(
      (await owner.run(["users", "list", "--project", projectId, "--json", "--query", "cleo@clerk"])).stdout,
    );
    expect(cleo[0]).toMatchObject({
      display_name: "Cleo Kerr",
      primary_email_verified: true,
      server_metadata: { clerk_user_id: "user_2abc" },
    });
    const dee = JSON.parse(
      (await owner.run(["users", "list", "--project", projectId, "--json", "--query", "dee@clerk"])).stdout,
    );
    expect(dee[0]).toMatchObject({ display_name: "dee", primary_email_verified: false });

    const supabaseHash = (await bcryptHash("supa-old-password", { cost: 4 })).replace(/^\$2b\$/, "$2a$");
    const quote = (value: unknown) => `"${JSON.stringify(value).replaceAll('"', '""')}"`;
    const supabase = [
      "id,email,email_confirmed_at,encrypted_password,raw_user_meta_data,raw_app_meta_data",
      `8f7c6d1e-0000-4000-8000-000000000001,sue@supabase.example,2024-03-01 10:00:00+00,${supabaseHash},${quote({ full_name: "Sue Base", avatar_url: null })},${quote({ provider: "email" })}`,
    ].join("\n");
    const supabaseRun = await importFile("supabase.csv", supabase, ["--from", "supabase", "--json"]);
    expect(supabaseRun.code, supabaseRun.stderr).toBe(0);
    expect((await signIn("sue@supabase.example", "supa-old-password")).status).toBe(200);
    const sue = JSON.parse(
      (await owner.run(["users", "list", "--project", projectId, "--json", "--query", "sue@supabase"]))
        .stdout,
    );
    expect(sue[0]).toMatchObject({
      display_name: "Sue Base",
      primary_email_verified: true,
      client_metadata: { full_name: "Sue Base" },
      server_metadata: { provider: "email", supabase_user_id: "8f7c6d1e-0000-4000-8000-000000000001" },
    });
  });

  it("reads a JSON array and Firebase's wrapped export with its scrypt parameters", async () => {
    const firebase = {
      users: [
        {
          localId: "fb-1",
          email: "fb@firebase.example",
          emailVerified: true,
          passwordHash:
            "lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==",
          salt: "42xEC+ixf3L2lw==",
        },
      ],
    };
    const flags = ["--from", "firebase", "--firebase-signer-key"];
    const key = "jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==";
    const run = await importFile("firebase.json", JSON.stringify(firebase, null, 2), [
      ...flags,
      key,
      "--firebase-salt-separator",
      "Bw==",
      "--firebase-rounds",
      "8",
      "--firebase-mem-cost",
      "14",
    ]);
    expect(run.code, run.stderr).toBe(0);
    expect((await signIn("fb@firebase.example", "user1password")).status).toBe(200);

    const array = await importFile("array.json", JSON.stringify([{ primary_email: "arr@json.example" }, 42]));
    expect(array.code).toBe(5);
    expect(array.stderr).toContain("line 1: expected a JSON object");
  });

  it("exports users with their hashes as CSV that imports back into another project", async () => {
    const out = join(dir, "export.csv");
    const exported = await owner.run([
      "users",
      "export",
      "--format",
      "csv",
      "--output",
      out,
      "--project",
      projectId,
    ]);
    expect(exported.code, exported.stderr).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(text.split("\n")[0]).toContain("password_hash");
    // Ann signed in, so her bcrypt hash became Argon2id (quoted: it holds commas); Bob's is still bcrypt.
    expect(text).toMatch(/,ann@auth0\.example,true,true,ANN,,\d+,false,"\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(text).toMatch(/,bob@auth0\.example,true,true,BOB,,\d+,false,\$2b\$04\$/);

    const other = JSON.parse((await owner.run(["projects", "create", "Copy", "--json"])).stdout).id as string;
    const copied = await owner.run(["users", "import", out, "--project", other, "--json"]);
    expect(copied.code, copied.stderr).toBe(0);
    expect(JSON.parse(copied.stdout).imported).toBe(text.trim().split("\n").length - 1);
  });
});
