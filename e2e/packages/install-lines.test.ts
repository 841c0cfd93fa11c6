import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gatehouseInstallLine, OFFICIAL_SDK_VERSION, officialInstallLine } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type ListeningServer,
  startListeningServer,
} from "../../packages/server/src/testing/listening-server.ts";
import { ROOT, sh } from "./test-support.ts";

/**
 * The install lines the product shows (the dashboard's keys page and `gatehouse init`, both from @gatehouse/shared's
 * install/ module), run as a newcomer runs them, in scratch apps outside the repository: the official SDK from the
 * registry, and our own packages from a running server's /sdk/ after `npm run build:sdk`.
 */
let scratch: string;
let server: ListeningServer;
let keys: { projectId: string; publishableClientKey: string; secretServerKey: string };

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "gatehouse-install-lines-"));
  await sh("npm", ["run", "build:sdk", "--silent"], ROOT);
  server = await startListeningServer();
  const project = await server.createProject("Install lines");
  keys = { projectId: project.id, ...project.keys };
}, 600_000);

afterAll(async () => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  await server?.close();
}, 300_000);

/** An empty app folder, and the line run in it word for word (plus quiet, offline-first flags). */
async function runInFreshApp(name: string, line: string): Promise<string> {
  const app = join(scratch, name);
  mkdirSync(app);
  writeFileSync(join(app, "package.json"), JSON.stringify({ name, private: true, type: "module" }));
  const [command, ...args] = line.split(" ");
  expect(command).toBe("npm");
  await sh(command!, [...args, "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], app);
  return app;
}

/** Runs an ES module in the app and parses what it printed. */
async function runScript(app: string, source: string): Promise<unknown> {
  writeFileSync(join(app, "check.mjs"), source);
  return JSON.parse(await sh(process.execPath, ["check.mjs"], app));
}

describe("the install lines the product shows", () => {
  it("name the official SDK release CI drives against the server", () => {
    const server = JSON.parse(readFileSync(join(ROOT, "packages/server/package.json"), "utf8")) as {
      devDependencies: Record<string, string>;
    };
    expect(server.devDependencies["stackframe-js-latest"]).toBe(`npm:@stackframe/js@${OFFICIAL_SDK_VERSION}`);
  });

  it("install the official SDK, which then works against this server through baseUrl", async () => {
    const app = await runInFreshApp("official-js", officialInstallLine("js"));
    const out = await runScript(
      app,
      `import { StackServerApp } from "@stackframe/js";
const app = new StackServerApp({ ...${JSON.stringify(keys)}, baseUrl: ${JSON.stringify(server.baseUrl)}, tokenStore: "memory" });
const user = await app.createUser({ primaryEmail: "official@install.example" });
console.log(JSON.stringify({ email: user.primaryEmail, listed: (await app.listUsers()).length }));
`,
    );
    expect(out).toEqual({ email: "official@install.example", listed: 1 });

    const react = await runInFreshApp("official-react", officialInstallLine("react"));
    const installed = JSON.parse(
      readFileSync(join(react, "node_modules/@stackframe/react/package.json"), "utf8"),
    ) as { version: string };
    expect(installed.version).toBe(OFFICIAL_SDK_VERSION);
  }, 600_000);

  it("install Gatehouse's own packages from this server's /sdk/", async () => {
    const app = await runInFreshApp("own-react", gatehouseInstallLine("react", server.baseUrl));
    const out = await runScript(
      app,
      `import { GatehouseServerApp } from "@gatehouse/js";
import * as react from "@gatehouse/react";
const app = new GatehouseServerApp({ ...${JSON.stringify(keys)}, baseUrl: ${JSON.stringify(server.baseUrl)}, tokenStore: "memory" });
const user = await app.createUser({ primaryEmail: "own@install.example" });
console.log(JSON.stringify({ email: user.primaryEmail, react: ["GatehouseProvider", "GatehouseHandler"].filter((name) => typeof react[name] === "function") }));
`,
    );
    expect(out).toEqual({ email: "own@install.example", react: ["GatehouseProvider", "GatehouseHandler"] });
    // The JavaScript-only line installs without React.
    const js = await runInFreshApp("own-js", gatehouseInstallLine("js", server.baseUrl));
    expect(JSON.parse(readFileSync(join(js, "node_modules/@gatehouse/js/package.json"), "utf8")).name).toBe(
      "@gatehouse/js",
    );
  }, 600_000);

  it("come from a server that hands out the packed tarballs as gzip files", async () => {
    const served = await fetch(`${server.baseUrl}/sdk/gatehouse-js.tgz`);
    expect(served.headers.get("content-type")).toBe("application/gzip");
    expect((await served.arrayBuffer()).byteLength).toBeGreaterThan(1000);
  });
});
