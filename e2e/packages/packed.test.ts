import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBrowserTest } from "../../packages/server/src/testing/browser.ts";
import { TEST_INTERNAL_KEYS } from "../../packages/server/src/testing/harness.ts";
import { packWorkspacePackage, run, sh, tarballFiles, versionOf } from "./test-support.ts";

/**
 * The packages as an app outside this repository gets them: packed with `npm pack` (each package's prepack builds
 * it), installed from the tarballs into a scratch app in the system's temp folder, then imported by plain Node,
 * typechecked against the shipped declarations, and bundled by Vite into a page that Chromium renders against a
 * real server.
 */
let scratch: string;
let tarballs: Record<string, string>;

beforeAll(async () => {
  scratch = mkdtempSync(join(tmpdir(), "gatehouse-scratch-app-"));
  const packs = join(scratch, "packs");
  mkdirSync(packs);
  tarballs = {};
  // In dependency order: each prepack builds its package on the declarations of the ones packed before.
  for (const name of ["shared", "js", "react", "cli"]) {
    tarballs[`@gatehouse/${name}`] = await packWorkspacePackage(name, packs);
  }
  const app = join(scratch, "app");
  mkdirSync(join(app, "src"), { recursive: true });
  writeFileSync(
    join(app, "package.json"),
    JSON.stringify({
      name: "scratch-app",
      private: true,
      type: "module",
      dependencies: {
        ...Object.fromEntries(Object.entries(tarballs).map(([name, file]) => [name, `file:${file}`])),
        react: versionOf("react"),
        "react-dom": versionOf("react-dom"),
      },
      devDependencies: {
        typescript: versionOf("typescript"),
        vite: versionOf("vite"),
        "@types/react": versionOf("@types/react"),
        "@types/react-dom": versionOf("@types/react-dom"),
      },
    }),
  );
  await sh("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error"], app);
}, 300_000);

afterAll(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

describe("the packed packages in an app outside the workspace", () => {
  it("ship only their build: dist, declarations, no sources or tests", async () => {
    for (const [name, tarball] of Object.entries(tarballs)) {
      const files = await tarballFiles(tarball);
      if (name === "@gatehouse/cli") {
        expect(files, name).toContain("package/dist/gatehouse.js");
        expect(files, name).toContain("package/config.d.ts");
      } else {
        expect(files, name).toContain("package/dist/index.js");
        expect(files, name).toContain("package/dist/index.d.ts");
      }
      expect(files, name).toContain("package/LICENSE");
      expect(
        files.filter((file) => file.startsWith("package/src/")),
        name,
      ).toEqual([]);
      expect(
        files.filter((file) => /\.test\.|\/testing\//.test(file)),
        name,
      ).toEqual([]);
    }
  });

  it("install the gatehouse bin, which runs against a real server with only its declared dependencies", async () => {
    const app = join(scratch, "app");
    const bin = join(app, "node_modules/.bin/gatehouse");
    const help = await sh(bin, ["--help"], app);
    expect(help).toContain("Usage: gatehouse");
    expect(help).toContain("users");

    const session = await startBrowserTest();
    try {
      const { stdout } = await run(bin, ["users", "create", "--email", "packed@cli.example", "--json"], {
        cwd: app,
        env: {
          ...process.env,
          GATEHOUSE_API_URL: session.server.baseUrl,
          GATEHOUSE_PROJECT_ID: "internal",
          GATEHOUSE_SUPER_SECRET_ADMIN_KEY: TEST_INTERNAL_KEYS.superSecretAdminKey,
          GATEHOUSE_CONFIG_DIR: join(scratch, "cli-config"),
        },
      });
      expect(JSON.parse(stdout)).toMatchObject({ primary_email: "packed@cli.example" });
    } finally {
      await session.close();
    }
    // Unreachable server: the documented exit code 4, not a stack trace.
    const failed = run(bin, ["users", "list", "--api-url", "http://127.0.0.1:9", "--project", "internal"], {
      cwd: app,
      env: { ...process.env, GATEHOUSE_SUPER_SECRET_ADMIN_KEY: "sak_x" },
    });
    await expect(failed).rejects.toMatchObject({ code: 4 });
  });

  it("import in plain Node", async () => {
    const app = join(scratch, "app");
    writeFileSync(
      join(app, "node-check.mjs"),
      `import { GatehouseClientApp, StackClientApp, GatehouseServerApp } from "@gatehouse/js";
import { KnownError } from "@gatehouse/shared";
import * as react from "@gatehouse/react";
const app = new GatehouseClientApp({ projectId: "internal", publishableClientKey: "pck_x", baseUrl: "http://127.0.0.1:9", tokenStore: "memory" });
console.log(JSON.stringify({
  projectId: app.projectId,
  alias: StackClientApp === GatehouseClientApp,
  server: typeof GatehouseServerApp,
  knownError: typeof KnownError,
  react: ["GatehouseProvider", "SignIn", "useUser", "GatehouseHandler"].filter((name) => typeof react[name] === "function"),
}));
`,
    );
    const out = JSON.parse(await sh(process.execPath, ["node-check.mjs"], app));
    expect(out).toEqual({
      projectId: "internal",
      alias: true,
      server: "function",
      knownError: "function",
      react: ["GatehouseProvider", "SignIn", "useUser", "GatehouseHandler"],
    });
  });

  // Two whole tsc runs: 5 s on a quiet machine, and past the default 30 s once on a loaded CI pass.
  it("typecheck against the shipped declarations, and wrong use is a type error", {
    timeout: 120_000,
  }, async () => {
    const app = join(scratch, "app");
    writeFileSync(
      join(app, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          strict: true,
          target: "ES2022",
          module: "NodeNext",
          moduleResolution: "NodeNext",
          lib: ["ES2022", "DOM"],
          jsx: "react-jsx",
          noEmit: true,
          types: [],
        },
        include: ["check.ts", "src"],
      }),
    );
    writeFileSync(
      join(app, "check.ts"),
      `import { GatehouseServerApp, type CurrentUser } from "@gatehouse/js";
import { isKnownError } from "@gatehouse/shared";
const server = new GatehouseServerApp({ projectId: "p1", secretServerKey: "ssk_x", tokenStore: "memory" });
export async function names(): Promise<string[]> {
  const users = await server.listUsers({ limit: 10 });
  return users.map((user) => user.primaryEmail ?? user.id);
}
export function describeUser(user: CurrentUser): string | null {
  return user.displayName;
}
export const check = (error: unknown) => isKnownError(error, "USER_NOT_FOUND");
`,
    );
    writeFileSync(join(app, "src/main.tsx"), MAIN_TSX);
    writeFileSync(
      join(app, "src/config.ts"),
      'export const config = { baseUrl: "http://127.0.0.1:9", publishableClientKey: "pck_x" };\n',
    );
    const tsc = join(app, "node_modules/typescript/bin/tsc");
    await sh(process.execPath, [tsc, "-p", "."], app);

    // The declarations are really read: a misuse of the SDK's types fails.
    writeFileSync(
      join(app, "check.ts"),
      `import { GatehouseClientApp } from "@gatehouse/js";\nnew GatehouseClientApp({ projectId: 42 });\n`,
    );
    await expect(sh(process.execPath, [tsc, "-p", "."], app)).rejects.toThrow(/TS2322|TS2345|TS2769/);
    rmSync(join(app, "check.ts"));
  });

  it("bundle with Vite into a page that renders the sign-in form against a real server", async () => {
    const app = join(scratch, "app");
    const session = await startBrowserTest();
    const gatehouse = session.server;
    let page: Awaited<ReturnType<typeof serveStatic>> | undefined;
    try {
      writeFileSync(
        join(app, "index.html"),
        '<!doctype html><html><head><meta charset="utf-8"><title>scratch</title></head><body><div id="root"></div><script type="module" src="/src/main.tsx"></script></body></html>',
      );
      writeFileSync(
        join(app, "src/config.ts"),
        `export const config = ${JSON.stringify({ baseUrl: gatehouse.baseUrl, publishableClientKey: TEST_INTERNAL_KEYS.publishableClientKey })};\n`,
      );
      const vite = join(app, "node_modules/vite/bin/vite.js");
      await sh(process.execPath, [vite, "build", "--logLevel", "error"], app);
      const assets = readdirSync(join(app, "dist/assets"));
      expect(assets.some((file) => file.endsWith(".js"))).toBe(true);

      page = await serveStatic(join(app, "dist"));
      const { page: tab } = await session.newPage();
      // Only uncaught exceptions fail this check (the page's own `errors` from newPage also holds console messages).
      const errors: string[] = [];
      tab.on("pageerror", (error) => errors.push(error.message));
      await tab.goto(page.url);
      await tab.getByRole("heading", { name: "Sign in" }).waitFor({ timeout: 15_000 });
      await expect(tab.getByLabel("E-mail", { exact: true }).count()).resolves.toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await new Promise<void>((resolve) => (page ? page.server.close(() => resolve()) : resolve()));
      await session.close();
    }
  });
});

const MAIN_TSX = `import { GatehouseClientApp } from "@gatehouse/js";
import { GatehouseProvider, SignIn } from "@gatehouse/react";
import { Suspense } from "react";
import { createRoot } from "react-dom/client";
import { config } from "./config.js";

const app = new GatehouseClientApp({
  projectId: "internal",
  baseUrl: config.baseUrl,
  publishableClientKey: config.publishableClientKey,
  tokenStore: "memory",
});

createRoot(document.getElementById("root")!).render(
  <GatehouseProvider app={app}>
    <Suspense fallback={<p>Loading</p>}>
      <SignIn />
    </Suspense>
  </GatehouseProvider>,
);
`;

const TYPES: Record<string, string> = {
  ".html": "text/html",
  ".js": "text/javascript",
  ".css": "text/css",
};

/** The built app on a local port, as any static host would serve it. */
async function serveStatic(dir: string): Promise<{ url: string; server: Server }> {
  const server = createServer((request, response) => {
    const path = new URL(request.url ?? "/", "http://x").pathname;
    const file = join(dir, path === "/" ? "index.html" : path);
    try {
      const body = readFileSync(file);
      response.writeHead(200, { "content-type": TYPES[extname(file)] ?? "application/octet-stream" });
      response.end(body);
    } catch {
      response.writeHead(404).end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}
