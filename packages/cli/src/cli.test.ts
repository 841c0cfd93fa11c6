import { execFile } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { patchConfigOverride } from "../../server/src/features/projects/config-store.ts";
import { type ListeningServer, startListeningServer } from "../../server/src/testing/listening-server.ts";
import { startTestSmtpServer } from "../../server/src/testing/smtp-server.ts";
import { loggedInOwner, runCli, tempDir } from "./test-support.ts";

let server: ListeningServer;
let owner: Awaited<ReturnType<typeof loggedInOwner>>;

beforeAll(async () => {
  server = await startListeningServer();
  owner = await loggedInOwner(server);
});
afterAll(() => server?.close());

/** tsx's loader by path: the scratch app outside the repository has no node_modules of its own. */
// Each test runs the CLI as its users do, as several Node processes one after another (each loading the CLI's
// TypeScript through tsx): 10 to 30 s on a loaded 2-core machine, so the suite's 30 s allowance is too tight here.
vi.setConfig({ testTimeout: 120_000 });

const TSX_LOADER = new URL("../../../node_modules/tsx/dist/loader.mjs", import.meta.url).href;

const json = (text: string) => JSON.parse(text) as Record<string, any>;

describe("the gatehouse bin", () => {
  it("has --help for every command and refuses unknown flags and commands with exit code 2", async () => {
    for (const args of [
      ["--help"],
      ["users", "import", "--help"],
      ["config", "push", "--help"],
      ["init", "--help"],
    ]) {
      const run = await runCli(args);
      expect(run.code, args.join(" ")).toBe(0);
      expect(run.stdout).toContain("Usage: gatehouse");
    }
    const flag = await runCli(["whoami", "--bogus"]);
    expect(flag.code).toBe(2);
    expect(flag.stderr).toContain("unknown option '--bogus'");
    const command = await runCli(["frobnicate"]);
    expect(command.code).toBe(2);
    expect(command.stderr).toContain("unknown command 'frobnicate'");
  });

  it("says when the server cannot be reached (exit 4) or nobody is logged in (exit 3)", async () => {
    const unreachable = await runCli(["login", "--no-browser", "--api-url", "http://127.0.0.1:9"]);
    expect(unreachable.code).toBe(4);
    expect(unreachable.stderr).toContain("Cannot reach Gatehouse at http://127.0.0.1:9");
    const nobody = await runCli(["whoami", "--api-url", server.baseUrl], {
      env: { GATEHOUSE_CONFIG_DIR: tempDir("empty") },
    });
    expect(nobody.code).toBe(3);
    expect(nobody.stderr).toContain("Not logged in");
    expect(nobody.stderr).not.toContain(String.fromCharCode(27));
  });

  it("whoami, projects and keys answer in JSON for scripts", async () => {
    const me = await owner.run(["whoami", "--json"]);
    expect(me.code).toBe(0);
    expect(json(me.stdout)).toMatchObject({ user_id: owner.user.id, api_url: server.baseUrl });

    const created = await owner.run(["projects", "create", "Listed", "--json"]);
    expect(created.code).toBe(0);
    const projectId = json(created.stdout).id as string;
    const list = await owner.run(["projects", "list", "--json"]);
    expect(JSON.parse(list.stdout).map((p: { id: string }) => p.id)).toContain(projectId);

    const keys = await owner.run(["keys", "create", "--project", projectId, "--json"]);
    const keySet = json(keys.stdout);
    expect(keySet.secret_server_key).toMatch(/^ssk_/);
    const refused = await owner.run(["keys", "revoke", keySet.id, "--project", projectId]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--yes");
    expect((await owner.run(["keys", "revoke", keySet.id, "--project", projectId, "--yes"])).code).toBe(0);
    const listed = JSON.parse((await owner.run(["keys", "list", "--project", projectId, "--json"])).stdout);
    expect(listed.find((k: { id: string }) => k.id === keySet.id).manually_revoked_at_millis).toBeGreaterThan(
      0,
    );

    const user = await owner.run([
      "users",
      "create",
      "--email",
      "made@cli.example",
      "--project",
      projectId,
      "--json",
    ]);
    const userId = json(user.stdout).id as string;
    expect(
      json((await owner.run(["users", "get", userId, "--project", projectId, "--json"])).stdout)
        .primary_email,
    ).toBe("made@cli.example");
    expect((await owner.run(["users", "delete", userId, "--project", projectId, "--yes"])).code).toBe(0);
    const gone = await owner.run(["users", "get", userId, "--project", projectId]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain("USER_NOT_FOUND");
  });
});

describe("gatehouse emails send-test", () => {
  it("sends through the SMTP server given, with the password from the environment, and says why it failed", async () => {
    const smtp = await startTestSmtpServer({ users: { mailer: "smtp-secret" } });
    try {
      const projectId = json((await owner.run(["projects", "create", "Mailing", "--json"])).stdout)
        .id as string;
      const base = [
        "emails",
        "send-test",
        "--project",
        projectId,
        "--host",
        "127.0.0.1",
        "--port",
        String(smtp.port),
      ];
      const sent = await owner.run([...base, "--to", "ops@cli.example", "--username", "mailer"], {
        env: { GATEHOUSE_SMTP_PASSWORD: "smtp-secret" },
      });
      expect(sent.code, sent.stderr).toBe(0);
      expect(sent.stdout).toContain("Sent a test email to ops@cli.example");
      const message = await smtp.waitForMessageTo("ops@cli.example");
      expect(message.authenticatedUser).toBe("mailer");

      const refused = await owner.run([...base, "--to", "ops@cli.example", "--username", "mailer"], {
        env: { GATEHOUSE_SMTP_PASSWORD: "wrong" },
      });
      expect(refused.code).toBe(1);
      expect(refused.stderr).toMatch(/The test email was not sent: .*rejected the login/);

      const missing = await owner.run([
        "emails",
        "send-test",
        "--project",
        projectId,
        "--to",
        "ops@cli.example",
      ]);
      expect(missing.code).toBe(2);
      expect(missing.stderr).toContain("--host");
    } finally {
      await smtp.close();
    }
  });
});

describe("gatehouse init", () => {
  it("writes a .env.local that an SDK script then uses, and never overwrites it unasked", async () => {
    const app = tempDir("next-app");
    writeFileSync(join(app, "package.json"), JSON.stringify({ dependencies: { next: "15.0.0" } }));
    const init = await owner.run(["init", "--create", "Init app"], { cwd: app });
    expect(init.code, init.stderr).toBe(0);
    expect(init.stdout).toContain("Next (Next.js): npm install @stackframe/react@");
    expect(init.stdout).toContain(`npm install ${server.baseUrl}/sdk/gatehouse-shared.tgz`);
    const envFile = join(app, ".env.local");
    const env = readFileSync(envFile, "utf8");
    expect(env).toMatch(/^NEXT_PUBLIC_STACK_PROJECT_ID=[0-9a-f-]{36}$/m);
    expect(env).toContain(`NEXT_PUBLIC_STACK_API_URL=${server.baseUrl}`);
    expect(statSync(envFile).mode & 0o777).toBe(0o600);

    // An app's script with plain Node and the SDK, configured by nothing but .env.local.
    const sdk = fileURLToPath(new URL("../../js/src/index.ts", import.meta.url));
    writeFileSync(
      join(app, "script.mjs"),
      `import { GatehouseServerApp } from ${JSON.stringify(sdk)};
const app = new GatehouseServerApp({ tokenStore: "memory" });
const user = await app.createUser({ primaryEmail: "from-sdk@cli.example" });
const page = await app.listUsers();
console.log(JSON.stringify({ id: user.id, count: page.length ?? page.items?.length }));`,
    );
    const { stdout } = await promisify(execFile)(
      process.execPath,
      ["--env-file=.env.local", "--import", TSX_LOADER, "--conditions=gatehouse-source", "script.mjs"],
      { cwd: app },
    );
    const projectId = /^NEXT_PUBLIC_STACK_PROJECT_ID=(.+)$/m.exec(env)![1]!;
    const listed = await owner.run(["users", "list", "--project", projectId, "--json"]);
    expect(JSON.parse(listed.stdout).map((u: { id: string }) => u.id)).toContain(json(stdout).id);

    // A second run without a terminal refuses to touch the file; with --yes it updates our lines only.
    writeFileSync(envFile, `${env}OTHER=kept\n`);
    const again = await owner.run(["init", "--project", projectId], { cwd: app });
    expect(again.code).toBe(2);
    expect(again.stderr).toContain("exists");
    expect(readFileSync(envFile, "utf8")).toBe(`${env}OTHER=kept\n`);
    expect((await owner.run(["init", "--project", projectId, "--yes"], { cwd: app })).code).toBe(0);
    const updated = readFileSync(envFile, "utf8");
    expect(updated).toContain("OTHER=kept");
    expect(updated).not.toBe(`${env}OTHER=kept\n`);
  });
});

describe("gatehouse config", () => {
  it("pulls by default what the dashboard set: the environment level", async () => {
    const projectId = json((await owner.run(["projects", "create", "Dashboard-made", "--json"])).stdout)
      .id as string;
    // What the dashboard's settings pages write.
    await patchConfigOverride(server.deps, projectId, "environment", {
      "domains.trustedDomains.app": { baseUrl: "https://app.example.com", handlerPath: "/handler" },
      "auth.password.allowSignIn": false,
    });
    const repo = tempDir("config-pull-default");
    const pulled = await owner.run(
      ["config", "pull", "--file", "gatehouse.config.json", "--project", projectId],
      {
        cwd: repo,
      },
    );
    expect(pulled.code, pulled.stderr).toBe(0);
    const file = JSON.parse(readFileSync(join(repo, "gatehouse.config.json"), "utf8")) as Record<
      string,
      unknown
    >;
    expect(JSON.stringify(file)).toContain("https://app.example.com");
    expect(JSON.stringify(file)).toContain("allowSignIn");
    const branch = await owner.run(
      ["config", "pull", "--file", "branch.json", "--level", "branch", "--project", projectId],
      { cwd: repo },
    );
    expect(branch.code, branch.stderr).toBe(0);
    expect(JSON.stringify(JSON.parse(readFileSync(join(repo, "branch.json"), "utf8")))).not.toContain(
      "app.example.com",
    );
  });

  it("round-trips pull, edit, diff, push, pull with a typed gatehouse.config.ts", async () => {
    const projectId = json((await owner.run(["projects", "create", "Config", "--json"])).stdout).id as string;
    const repo = tempDir("config-repo");
    // OAuth credentials belong to the environment level (the default): the server refuses them at the branch level.
    const run = (args: string[], env: Record<string, string> = {}) =>
      owner.run([...args, "--project", projectId], { cwd: repo, env });

    expect((await run(["config", "pull", "--file", "gatehouse.config.ts"])).code).toBe(0);
    const file = join(repo, "gatehouse.config.ts");
    const pulled = readFileSync(file, "utf8");
    expect(pulled).toContain('import type { GatehouseConfig } from "@gatehouse/cli/config";');

    writeFileSync(
      file,
      pulled.replace(
        /export default \{[\s\S]*\} satisfies GatehouseConfig;/,
        `export default {
  "auth.password.allowSignIn": true,
  "users.allowClientUserDeletion": true,
  "auth.oauth.providers.github": { type: "github", isShared: false, clientId: "gh-id", clientSecret: { $env: "GH_SECRET" } },
} satisfies GatehouseConfig;`,
      ),
    );
    const missingSecret = await run(["config", "diff"]);
    expect(missingSecret.code).toBe(5);
    expect(missingSecret.stderr).toContain("$GH_SECRET, which is not set");

    const diff = await run(["config", "diff", "--json"], { GH_SECRET: "s3cret-value" });
    expect(diff.code, diff.stderr).toBe(0);
    expect(diff.stdout).not.toContain("s3cret-value");
    const paths = json(diff.stdout).changes.map((c: { path: string }) => c.path);
    expect(paths).toEqual(
      expect.arrayContaining(["auth.password.allowSignIn", "users.allowClientUserDeletion"]),
    );

    const unconfirmed = await run(["config", "push"], { GH_SECRET: "s3cret-value" });
    expect(unconfirmed.code).toBe(2);
    const pushed = await run(["config", "push", "--yes"], { GH_SECRET: "s3cret-value" });
    expect(pushed.code, pushed.stderr).toBe(0);
    expect(
      json((await run(["config", "diff", "--json"], { GH_SECRET: "s3cret-value" })).stdout).changes,
    ).toEqual([]);

    // Pulled again: the edit is there, the secret is an environment reference, never the value.
    expect((await run(["config", "pull", "--file", "gatehouse.config.json", "--force"])).code).toBe(0);
    const again = readFileSync(join(repo, "gatehouse.config.json"), "utf8");
    expect(again).not.toContain("s3cret-value");
    // The server keeps the override as pushed, dotted keys included.
    expect(JSON.parse(again)).toMatchObject({
      "auth.password.allowSignIn": true,
      "auth.oauth.providers.github": {
        clientId: "gh-id",
        clientSecret: { $env: "GATEHOUSE_AUTH_OAUTH_PROVIDERS_GITHUB_CLIENT_SECRET" },
      },
    });
    const project = await server.request("/api/v1/projects/current", {
      headers: { "x-stack-project-id": projectId, "x-stack-access-type": "client" },
    });
    expect(project.body.config.credential_enabled).toBe(true);
  });

  it("refuses a secret written into the file", async () => {
    const repo = tempDir("config-secret");
    writeFileSync(
      join(repo, "gatehouse.config.json"),
      JSON.stringify({ emails: { server: { password: "plain-text" } } }),
    );
    const run = await owner.run(["config", "push", "--yes", "--project", "internal"], { cwd: repo });
    expect(run.code).toBe(5);
    expect(run.stderr).toContain("emails.server.password is a secret written into the config file");
    expect(existsSync(join(repo, "gatehouse.config.json"))).toBe(true);
  });
});
