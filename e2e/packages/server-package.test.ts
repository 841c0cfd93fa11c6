import { randomBytes } from "node:crypto";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callApi, expectOk, newSeedKeys, seedKeysEnv } from "../product/api.ts";
import { createOwnDatabase, type OwnDatabase } from "../product/postgres-database.ts";
import { startProduct } from "../product/product-process.ts";
import { ROOT, run, sh, tarballFiles } from "./test-support.ts";

/**
 * @gatehouse/server as a deployment gets it, through the two scripts the container image is built with
 * (deploy/Dockerfile): deploy/scripts/build-release.sh packs it (its prepack builds the server, the dashboard and
 * the migrations into the tarball) and deploy/scripts/install-release.sh installs the tarball with plain npm and its
 * production dependencies into a scratch folder outside the repository. Then `gatehouse-server migrate` and
 * `gatehouse-server` run from there in production mode, on the pass's database: a fresh PostgreSQL database, or
 * the embedded one in a scratch data directory.
 */
const postgresUrl = process.env.DATABASE_URL;
const database = postgresUrl ? "a fresh PostgreSQL database" : "the embedded database";

let scratch: string;
let tarball: string;
let prefix: string;
let installed: string;
let bin: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "gatehouse-server-package-"));
  const release = join(scratch, "release");
  prefix = join(scratch, "prefix");
  tarball = (await sh(join(ROOT, "deploy/scripts/build-release.sh"), [release], ROOT)).trim();
  // The workspace installed these same versions, so npm's cache has them: no registry round trips needed.
  await sh(join(ROOT, "deploy/scripts/install-release.sh"), [release, prefix], scratch, {
    ...process.env,
    npm_config_prefer_offline: "true",
  });
  installed = join(prefix, "node_modules/@gatehouse/server");
  bin = join(prefix, "node_modules/.bin/gatehouse-server");
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Packages the built server loads by name at run time, which no import statement shows. */
const LOADED_BY_NAME = {
  // email-rendering/compile.ts: esbuild bundles each email with these, resolved from the installed package.
  "react-dom": "the email sandbox's renderer",
  arktype: "the email sandbox's schema library",
};

const EMAIL_TEMPLATE = `import { Text } from "@react-email/components";
import { Subject } from "@gatehouse/emails";
export function EmailTemplate() {
  return (
    <>
      <Subject value="Installed" />
      <Text>Rendered by the installed package</Text>
    </>
  );
}`;

/** Every npm package a file imports, following its relative imports: static, dynamic and `require` alike. */
async function npmPackagesImportedBy(entryPoints: string[]): Promise<Set<string>> {
  const packages = new Set<string>();
  await build({
    entryPoints,
    bundle: true,
    write: false,
    outdir: join(scratch, "scan"),
    platform: "node",
    format: "esm",
    logLevel: "error",
    plugins: [
      {
        name: "record-packages",
        setup(builder) {
          builder.onResolve({ filter: /^[^./]/ }, (args) => {
            const builtin = args.path.startsWith("node:") || builtinModules.includes(args.path);
            if (!builtin) {
              const parts = args.path.split("/");
              packages.add(args.path.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0]!);
            }
            return { path: args.path, external: true };
          });
        },
      },
    ],
  });
  return packages;
}

describe("the packed @gatehouse/server, installed outside the workspace", () => {
  it("ships its bin, the server build with the dashboard inside, and the files read at run time", async () => {
    const files = await tarballFiles(tarball);
    for (const file of [
      "package/package.json",
      "package/LICENSE",
      "package/bin/gatehouse-server.js",
      "package/dist/main.js",
      "package/dist/README.md",
      "package/dist/dashboard/index.html",
      "package/src/email-rendering/sandbox-worker.mjs",
      "package/src/email-rendering/sandbox-prelude.mjs",
      "package/src/db/migrations/meta/_journal.json",
    ]) {
      expect(files).toContain(file);
    }
    const migrations = readdirSync(join(ROOT, "packages/server/src/db/migrations")).filter((name) =>
      name.endsWith(".sql"),
    );
    expect(migrations.length).toBeGreaterThan(0);
    for (const migration of migrations) expect(files).toContain(`package/src/db/migrations/${migration}`);
    expect(files.some((file) => file.startsWith("package/dist/dashboard/assets/"))).toBe(true);
    // Sources and tests stay in the repository: the only files under src/ are the ones read at run time.
    expect(files.filter((file) => /\.tsx?$/.test(file))).toEqual([]);
    expect(files.filter((file) => /\.test\.|\/testing\//.test(file))).toEqual([]);
  });

  it("depends on exactly the npm packages its build loads, and on no workspace package", async () => {
    const manifest = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      dependencies: Record<string, string>;
      private?: boolean;
    };
    expect(manifest.private).toBeUndefined();
    const imported = await npmPackagesImportedBy([
      join(installed, "bin/gatehouse-server.js"),
      join(installed, "src/email-rendering/sandbox-worker.mjs"),
    ]);
    // net/ip-info.ts and features/images/storage.ts load theirs with createRequire.
    for (const file of readdirSync(join(installed, "dist")).filter((name) => name.endsWith(".js"))) {
      const code = readFileSync(join(installed, "dist", file), "utf8");
      for (const match of code.matchAll(/createRequire\d*\(import\.meta\.url\)\(\s*"([^"]+)"/g)) {
        imported.add(match[1]!);
      }
    }
    for (const name of Object.keys(LOADED_BY_NAME)) imported.add(name);
    expect(imported).toContain("@electric-sql/pglite");
    expect(imported).toContain("geoip-country");
    expect(Object.keys(manifest.dependencies).sort()).toEqual([...imported].sort());
    expect(Object.keys(manifest.dependencies).filter((name) => name.startsWith("@gatehouse/"))).toEqual([]);
  });

  it("answers --help, --version and an unknown command, also through npx", async () => {
    const help = await sh(bin, ["--help"], prefix);
    expect(help).toContain("Usage: gatehouse-server");
    expect(help).toMatch(/^\s+migrate\s/m);
    const { version } = JSON.parse(readFileSync(join(installed, "package.json"), "utf8")) as {
      version: string;
    };
    expect((await sh(bin, ["--version"], prefix)).trim()).toBe(version);
    expect((await sh("npx", ["--no-install", "gatehouse-server", "--version"], prefix)).trim()).toBe(version);
    await expect(run(bin, ["serv"], { cwd: prefix })).rejects.toMatchObject({ code: 2 });
  });

  // Three processes one after another (migrate, whose fresh embedded database is made by a child of its own, then the
  // server), each loading the bundle and PGlite's engine: 15 to 30 s on a loaded 2-core machine.
  it(`migrates and then serves the API and the dashboard in production, on ${database}`, {
    timeout: 120_000,
  }, async () => {
    const own: OwnDatabase | undefined = postgresUrl
      ? await createOwnDatabase(postgresUrl, "gatehouse_package")
      : undefined;
    const dataDir = mkdtempSync(join(scratch, "data-"));
    const keys = newSeedKeys();
    const env = {
      NODE_ENV: "production",
      GATEHOUSE_SECRET: randomBytes(32).toString("base64url"),
      GATEHOUSE_DATA_DIR: dataDir,
      ...(own ? { DATABASE_URL: own.url, GATEHOUSE_MIGRATE_ON_START: "false" } : {}),
      ...seedKeysEnv(keys),
    };
    try {
      // As the compose file's `migrate` service and the Kubernetes Job do, before any instance starts.
      const migrated = await sh(bin, ["migrate"], prefix, { PATH: process.env.PATH, ...env });
      expect(migrated).toMatch(/Applied \d+ migration|up to date/);

      const server = await startProduct({
        command: [bin],
        cwd: prefix,
        dataDir,
        env: (baseUrl) => ({ ...env, GATEHOUSE_BASE_URL: baseUrl }),
      });
      try {
        const client = {
          projectId: "internal",
          accessType: "client" as const,
          publishableClientKey: keys.publishableClientKey,
        };
        const signedUp = (await expectOk(
          callApi(server.baseUrl, client, "/auth/password/sign-up", {
            body: { email: "packaged@server.example", password: "installed from the tarball" },
          }),
          "sign-up",
        )) as { access_token: string };
        const me = await expectOk(
          callApi(server.baseUrl, { ...client, accessToken: signedUp.access_token }, "/users/me"),
          "the signed-up user",
        );
        expect(me).toMatchObject({ primary_email: "packaged@server.example" });

        // An owner's template: esbuild bundles it with React Email from the installed package's node_modules, and
        // the sandbox's worker thread (a file beside the bundle) renders it.
        const rendered = await expectOk(
          callApi(
            server.baseUrl,
            { projectId: "internal", accessType: "admin", superSecretAdminKey: keys.superSecretAdminKey },
            "/emails/render-email",
            { body: { template_tsx_source: EMAIL_TEMPLATE, theme_id: false } },
          ),
          "render-email",
        );
        expect(rendered).toMatchObject({ subject: "Installed" });
        expect(rendered.html).toContain("Rendered by the installed package");

        const index = await fetch(`${server.baseUrl}/`);
        expect(index.status).toBe(200);
        expect(index.headers.get("content-type")).toContain("text/html");
        const html = await index.text();
        const script = /<script[^>]+src="(\/assets\/[^"]+\.js)"/.exec(html)?.[1];
        expect(script, html).toBeDefined();
        const asset = await fetch(`${server.baseUrl}${script}`);
        expect(asset.status).toBe(200);
        expect(asset.headers.get("content-type")).toContain("javascript");

        // The probes of deploy/compose.yaml and deploy/kubernetes.
        for (const probe of ["/health", "/ready"]) {
          const answer = await fetch(`${server.baseUrl}${probe}`);
          expect(answer.status, probe).toBe(200);
          expect(answer.headers.get("content-type"), probe).not.toContain("text/html");
        }
        expect(server.log()).toContain("Gatehouse is running at");
      } finally {
        await server.stop();
      }
      expect(server.serverErrors()).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
      await own?.drop();
    }
  });
});
