import { type ChildProcessByStdio, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { type GatehouseClientApp, KnownError, type Runtime } from "@gatehouse/js";
import { afterAll, beforeAll } from "vitest";
import type { AdminProjectConfigUpdateOptions } from "../../../js/src/objects/admin-projects.ts";
import { appsFor, uniqueEmail } from "../../../js/src/testing/apps.ts";
import type { ProjectKeys, RunningGatehouse } from "../../../js/src/testing/gatehouse-server.ts";

/**
 * Component tests against a real Gatehouse: the server of the SDK tests (packages/js/src/testing), listening on a
 * random port with a fresh database per test file, in a Node process of its own (server-process.ts says why), and
 * a real GatehouseClientApp talking to it. The only thing added is a look at what went over the wire (route and
 * body), to check what a form sent.
 */
export type TestGatehouse = {
  baseUrl: string;
  createProject(displayName?: string): Promise<{ id: string; keys: ProjectKeys }>;
  /** The full code (45 characters) of the newest e-mail the project sent to an address. */
  latestEmailCode(projectId: string, address: string): Promise<string>;
  /** Every verification code of the project expires now. */
  expireCodes(projectId: string): Promise<void>;
};

const SERVER_PROCESS = fileURLToPath(new globalThis.URL("./server-process.ts", import.meta.url).href);
const ROOT = fileURLToPath(new globalThis.URL("../../../../", import.meta.url).href);
const TSX = `${ROOT}node_modules/.bin/tsx`;

async function startServerProcess(): Promise<TestGatehouse & { close(): Promise<void> }> {
  // The server's e-mail templates use the automatic JSX runtime of the shared compiler options.
  const child: ChildProcessByStdio<Writable, Readable, null> = spawn(
    TSX,
    ["--conditions=gatehouse-source", "--tsconfig", `${ROOT}tsconfig.base.json`, SERVER_PROCESS],
    { stdio: ["pipe", "pipe", "inherit"] },
  );
  const lines = createInterface({ input: child.stdout });
  const pending = new Map<number, { resolve: (value: any) => void; reject: (error: Error) => void }>();
  let started: (baseUrl: string) => void = () => {};
  const baseUrl = new Promise<string>((resolve, reject) => {
    started = resolve;
    child.once("exit", (code) => {
      const gone = new Error(`The test server exited (${code})`);
      reject(gone);
      for (const waiting of pending.values()) waiting.reject(gone);
      pending.clear();
    });
  });
  lines.on("line", (line) => {
    const message = JSON.parse(line);
    if (typeof message.baseUrl === "string") return started(message.baseUrl);
    const waiting = pending.get(message.id);
    pending.delete(message.id);
    if (message.error) waiting?.reject(new Error(message.error));
    else waiting?.resolve(message.result);
  });
  let nextId = 0;
  const ask = (operation: string, ...args: unknown[]) =>
    new Promise<any>((resolve, reject) => {
      const id = ++nextId;
      pending.set(id, { resolve, reject });
      child.stdin.write(`${JSON.stringify({ id, operation, args })}\n`);
    });
  return {
    baseUrl: await baseUrl,
    createProject: (displayName) => ask("createProject", displayName),
    latestEmailCode: (projectId, address) => ask("latestEmailCode", projectId, address),
    expireCodes: (projectId) => ask("expireCodes", projectId),
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.stdin.end();
      }),
  };
}

export type ProjectSettings = AdminProjectConfigUpdateOptions;

/** What every test project starts with; each test turns on what it needs. */
const BASE_SETTINGS: ProjectSettings = {
  signUpEnabled: true,
  credentialEnabled: true,
  magicLinkEnabled: false,
  passkeyEnabled: false,
  clientTeamCreationEnabled: false,
  clientUserDeletionEnabled: false,
  allowUserApiKeys: false,
  // The components run under happy-dom at http://localhost:3000; links they send must be trusted.
  allowLocalhost: true,
  oauthProviders: [],
};

/** Starts one real server for the test file (in beforeAll) and stops it after; call the result inside tests. */
export function testServerForFile(): () => TestGatehouse {
  let running: Awaited<ReturnType<typeof startServerProcess>> | undefined;
  beforeAll(async () => {
    running = await startServerProcess();
  });
  afterAll(async () => {
    await running?.close();
  });
  return () => {
    if (!running)
      throw new Error("The test server is not running (testServerForFile must be called at the top level).");
    return running;
  };
}

export type SentRequest = { route: string; body: any };

export type TestUser = { id: string; email: string; password: string; displayName: string };

export type TestProject = Awaited<ReturnType<typeof createTestProject>>;

/** A fresh project of the running server with `settings` over the base ones, and helpers around it. */
export async function createTestProject(gatehouse: TestGatehouse, settings: ProjectSettings = {}) {
  const project = await gatehouse.createProject("Acme Notes");
  // appsFor reads only the server's address.
  const apps = appsFor({ baseUrl: gatehouse.baseUrl } as RunningGatehouse, project);
  const admin = apps.admin();
  const server = apps.server();
  const configure = async (changes: ProjectSettings) =>
    (await admin.getProject()).update({ config: changes });
  await configure({ ...BASE_SETTINGS, ...settings });

  /** A user with a verified e-mail that signs in with a password. */
  async function createUser(options: { displayName?: string; email?: string } = {}): Promise<TestUser> {
    const email = options.email ?? uniqueEmail("sam");
    const password = "sams password 1";
    const displayName = options.displayName ?? "Sam Rivera";
    const user = await server.createUser({
      primaryEmail: email,
      password,
      primaryEmailVerified: true,
      primaryEmailAuthEnabled: true,
      displayName,
    });
    return { id: user.id, email, password, displayName };
  }

  /**
   * A client app of the project as a page would have it (memory store), recording where it navigated and what it
   * sent. With `signedInAs`, it signs in with that user's password first; those requests are not recorded.
   */
  async function client(
    options: {
      signedInAs?: TestUser;
      scripted?: Record<string, ScriptedReply>;
      /** Holds a request before it goes to the server (to see which requests a page sends at once). */
      beforeSending?: (route: string) => Promise<void>;
    } = {},
  ) {
    const sent: SentRequest[] = [];
    const navigated: string[] = [];
    const realFetch = globalThis.fetch;
    const runtime: Partial<Runtime> = {
      fetch: async (input, init) => {
        const url = new URL(String(input));
        const route = `${init?.method ?? "GET"} ${url.pathname.replace(/^\/api\/v1/, "")}`;
        sent.push({ route, body: parseBody(init?.body) });
        await options.beforeSending?.(route);
        const reply = options.scripted?.[route]?.();
        return reply ? scriptedResponse(reply) : realFetch(input, init);
      },
      // Retries after a failed request would wait for real otherwise.
      sleep: async () => {},
    };
    const app: GatehouseClientApp = apps.client({
      redirectMethod: { navigate: (to) => navigated.push(to) },
      runtime,
    });
    if (options.signedInAs) {
      const { email, password } = options.signedInAs;
      const result = await app.signInWithCredential({ email, password, noRedirect: true });
      if (result.status === "error") throw result.error;
      sent.length = 0;
    }
    /** The routes called, in order (for asserting what did or did not reach the server). */
    const routesCalled = () => sent.map((request) => request.route);
    /** The body of the last request to `route`. */
    const lastBody = (route: string) => sent.filter((request) => request.route === route).at(-1)?.body;
    return { app, sent, navigated, routesCalled, lastBody };
  }

  return {
    id: project.id,
    admin,
    server,
    configure,
    createUser,
    client,
    /** The code of the newest e-mail the project sent to an address (from the server's outbox table). */
    latestEmailCode: (address: string) => gatehouse.latestEmailCode(project.id, address),
    expireCodes: () => gatehouse.expireCodes(project.id),
  };
}

/**
 * A reply the test gives instead of the server, for the few cases a real server cannot be brought to produce (a
 * network failure, a rule the server's configuration cannot change); each use says why next to it. Null lets
 * the request through to the server.
 */
export type ScriptedReply = () => KnownError | { status: number; body: unknown } | null;

function scriptedResponse(reply: NonNullable<ReturnType<ScriptedReply>>): Response {
  if (reply instanceof KnownError) {
    return new Response(JSON.stringify(reply.toJSON()), {
      status: reply.status,
      headers: { "content-type": "application/json", "x-stack-known-error": reply.code },
    });
  }
  const text = typeof reply.body === "string" ? reply.body : JSON.stringify(reply.body);
  const type = typeof reply.body === "string" ? "text/plain" : "application/json";
  return new Response(text, { status: reply.status, headers: { "content-type": type } });
}

function parseBody(body: unknown): any {
  if (typeof body !== "string" || body === "") return null;
  try {
    return JSON.parse(body);
  } catch {
    return Object.fromEntries(new URLSearchParams(body));
  }
}
