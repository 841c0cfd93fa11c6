import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import { expectKnownError } from "../testing/known-errors.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Protocol test project");
});
afterAll(() => server.close());

describe("non-API endpoints", () => {
  it("answers /health", async () => {
    const response = await server.request("/health");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: "ok" });
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("welcomes on GET /api/v1 and tells how the request was authenticated", async () => {
    const anonymous = await server.request("/api/v1");
    expect(anonymous.status).toBe(200);
    expect(anonymous.text.trimEnd().endsWith("Authentication: None")).toBe(true);

    const asServer = await server.request("/api/v1", { headers: project.headers("server") });
    expect(asServer.text).toContain("Authentication: Server");
    expect(asServer.text).toContain(`  Project: ${project.id}`);
    expect(asServer.text).toContain("  User: None");
  });

  it("answers unknown API paths with a plain-text 404", async () => {
    const response = await server.request("/api/v1/this/does/not/exist", {
      headers: project.headers("admin"),
    });
    expect(response.status).toBe(404);
    expect(response.headers.get("content-type")).toContain("text/plain");
    expect(response.headers.get("x-stack-known-error")).toBeNull();
    expect(response.text.startsWith("404 — this page does not exist")).toBe(true);
  });

  it("answers OPTIONS with an empty 200 and CORS headers", async () => {
    const response = await server.request("/api/v1/users", { method: "OPTIONS" });
    expect(response.status).toBe(200);
    expect(response.text).toBe("");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
    expect(response.headers.get("access-control-allow-headers")).toContain("x-stack-access-token");
    expect(response.headers.get("access-control-allow-headers")).toContain("x-hexclave-project-id");
    expect(response.headers.get("access-control-expose-headers")).toBe(
      "content-type, x-stack-actual-status, x-stack-known-error",
    );
    expect(response.headers.get("access-control-max-age")).toBe("86400");
  });

  it("refuses methods outside the allowed list with 405", async () => {
    const response = await server.request("/api/v1/projects/current", { method: "PROPFIND" });
    expect(response.status).toBe(405);
  });

  it("serves both /api/v1 and /api/latest", async () => {
    for (const prefix of ["/api/v1", "/api/latest"]) {
      const response = await server.request(`${prefix}/projects/current`, {
        headers: project.headers("client"),
      });
      expect(response.status).toBe(200);
      expect(response.body.id).toBe(project.id);
    }
  });
});

describe("response headers", () => {
  it("sets a request id, no-store caching and CORS on API responses", async () => {
    const response = await server.request("/api/v1/projects/current", { headers: project.headers("client") });
    expect(response.headers.get("x-stack-request-id")).toMatch(/^[A-Za-z0-9_-]{16}$/);
    expect(response.headers.get("cache-control")).toBe("no-store, max-age=0");
    expect(response.headers.get("access-control-allow-origin")).toBe("*");
  });

  it("moves a 4xx to x-stack-actual-status when asked to", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: {
        ...project.headers("server"),
        "x-stack-secret-server-key": "ssk_wrong",
        "x-stack-override-error-status": "true",
      },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stack-actual-status")).toBe("401");
    expect(response.headers.get("x-stack-known-error")).toBe("INVALID_SECRET_SERVER_KEY");
    expect(response.body.code).toBe("INVALID_SECRET_SERVER_KEY");
  });

  it("leaves successful responses alone under override-error-status", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: { ...project.headers("client"), "x-stack-override-error-status": "true" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("x-stack-actual-status")).toBeNull();
  });
});

describe("project authentication headers (PROTOCOL.md §1.2 order)", () => {
  it("refuses a key without an access type", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: {
        "x-stack-project-id": project.id,
        "x-stack-secret-server-key": project.keys.secretServerKey,
      },
    });
    expectKnownError(response, 400, "PROJECT_KEY_WITHOUT_ACCESS_TYPE");
    expect(response.body.details).toBeUndefined();
  });

  it("asks for an access type when none was given", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: { "x-stack-project-id": project.id },
    });
    expectKnownError(response, 400, "ACCESS_TYPE_REQUIRED");
  });

  it("refuses an unknown access type", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: { "x-stack-project-id": project.id, "x-stack-access-type": "root" },
    });
    expectKnownError(response, 400, "INVALID_ACCESS_TYPE");
  });

  it("needs a project id with an access type", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: { "x-stack-access-type": "client" },
    });
    expectKnownError(response, 400, "ACCESS_TYPE_WITHOUT_PROJECT_ID");
    expect(response.body.details).toEqual({ request_type: "client" });
  });

  it("reports an unknown project", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: {
        "x-stack-project-id": "8f4b7a44-2f7e-4a5c-9d0f-1b8a6c3e2d10",
        "x-stack-access-type": "client",
      },
    });
    expectKnownError(response, 400, "CURRENT_PROJECT_NOT_FOUND");
    expect(response.body.details).toEqual({ project_id: "8f4b7a44-2f7e-4a5c-9d0f-1b8a6c3e2d10" });
    expect(response.body.error).toContain("8f4b7a44-2f7e-4a5c-9d0f-1b8a6c3e2d10");
  });

  it.each([
    ["client", "x-stack-publishable-client-key", "INVALID_PUBLISHABLE_CLIENT_KEY"],
    ["server", "x-stack-secret-server-key", "INVALID_SECRET_SERVER_KEY"],
    ["admin", "x-stack-super-secret-admin-key", "INVALID_SUPER_SECRET_ADMIN_KEY"],
  ] as const)("refuses a wrong %s key", async (accessType, header, code) => {
    const response = await server.request("/api/v1/projects/current", {
      headers: { ...project.headers(accessType), [header]: "wrong-key" },
    });
    expectKnownError(response, 401, code);
    expect(response.body.details).toEqual({ project_id: project.id });
  });

  it("refuses another project's key", async () => {
    const other = await server.createProject("Other");
    const response = await server.request("/api/v1/projects/current", {
      headers: { ...project.headers("server"), "x-stack-secret-server-key": other.keys.secretServerKey },
    });
    expectKnownError(response, 401, "INVALID_SECRET_SERVER_KEY");
  });

  it("asks for the server and admin keys when they are missing", async () => {
    const server_ = await server.request("/api/v1/projects/current", {
      headers: { "x-stack-project-id": project.id, "x-stack-access-type": "server" },
    });
    expectKnownError(server_, 401, "SERVER_AUTHENTICATION_REQUIRED");
    const admin = await server.request("/api/v1/projects/current", {
      headers: {
        "x-stack-project-id": project.id,
        "x-stack-access-type": "admin",
        "x-stack-super-secret-admin-key": "",
      },
    });
    expectKnownError(admin, 401, "ADMIN_AUTHENTICATION_REQUIRED");
  });

  it("lets clients in without a publishable key unless the project requires one", async () => {
    const headers = { "x-stack-project-id": project.id, "x-stack-access-type": "client" };
    expect((await server.request("/api/v1/projects/current", { headers })).status).toBe(200);
    const sentinel = { ...headers, "x-stack-publishable-client-key": "__stack_public_client__" };
    expect((await server.request("/api/v1/projects/current", { headers: sentinel })).status).toBe(200);

    await project.configure({ "project.requirePublishableClientKey": true }, "project");
    expectKnownError(
      await server.request("/api/v1/projects/current", { headers }),
      401,
      "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT",
    );
    expectKnownError(
      await server.request("/api/v1/projects/current", { headers: sentinel }),
      401,
      "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT",
    );
    expect(
      (await server.request("/api/v1/projects/current", { headers: project.headers("client") })).status,
    ).toBe(200);
  });

  it("accepts the x-hexclave- prefix of newer SDKs", async () => {
    const response = await server.request("/api/v1/internal/projects/current", {
      headers: {
        "x-hexclave-project-id": project.id,
        "x-hexclave-access-type": "admin",
        "x-hexclave-super-secret-admin-key": project.keys.superSecretAdminKey,
        "x-hexclave-override-error-status": "true",
      },
    });
    expect(response.status).toBe(200);
    expect(response.body.id).toBe(project.id);
  });

  it("checks the branch only after the keys", async () => {
    const wrongKey = await server.request("/api/v1/projects/current", {
      headers: {
        ...project.headers("server"),
        "x-stack-secret-server-key": "nope",
        "x-stack-branch-id": "dev",
      },
    });
    expectKnownError(wrongKey, 401, "INVALID_SECRET_SERVER_KEY");
    const rightKey = await server.request("/api/v1/projects/current", {
      headers: { ...project.headers("server"), "x-stack-branch-id": "dev" },
    });
    expectKnownError(rightKey, 400, "BRANCH_DOES_NOT_EXIST");
    expect(rightKey.body.details).toEqual({ branch_id: "dev" });
  });

  it("refuses a disallowed access type with the allowed ones in the details", async () => {
    const response = await server.request("/api/v1/internal/projects/current", {
      headers: project.headers("client"),
    });
    expectKnownError(response, 401, "INSUFFICIENT_ACCESS_TYPE");
    expect(response.body.details).toEqual({ actual_access_type: "client", allowed_access_types: ["admin"] });
    expect(response.body.error).toBe("The x-stack-access-type header must be 'admin', but was 'client'.");
  });

  it("refuses an access token that is not a valid JWT", async () => {
    const response = await server.request("/api/v1/projects/current", {
      headers: project.headers("client", { "x-stack-access-token": "not-a-jwt" }),
    });
    expectKnownError(response, 401, "UNPARSABLE_ACCESS_TOKEN");
  });

  it("refuses an admin access token that is not a valid JWT", async () => {
    const response = await server.request("/api/v1/internal/projects/current", {
      headers: {
        "x-stack-project-id": project.id,
        "x-stack-access-type": "admin",
        "x-stack-admin-access-token": "garbage",
      },
    });
    expectKnownError(response, 401, "UNPARSABLE_ADMIN_ACCESS_TOKEN");
  });
});

describe("request bodies", () => {
  const path = "/api/v1/internal/projects/current";

  it("refuses invalid JSON", async () => {
    const response = await server.request(path, {
      method: "PATCH",
      headers: project.headers("admin"),
      body: "{not json",
    });
    expectKnownError(response, 400, "BODY_PARSING_ERROR");
    expect(response.body.error).toBe("Invalid JSON in request body");
  });

  it("refuses an unsupported content type", async () => {
    const response = await server.request(path, {
      method: "PATCH",
      headers: { ...project.headers("admin"), "content-type": "application/xml" },
      body: "<a/>",
    });
    expectKnownError(response, 400, "BODY_PARSING_ERROR");
  });

  it("refuses unknown properties with SCHEMA_ERROR", async () => {
    const response = await server.request(path, {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { display_name: "ok", extra: 1 },
    });
    expectKnownError(response, 400, "SCHEMA_ERROR");
    expect(response.body.error).toContain(`Request validation failed on PATCH ${path}:`);
    expect(response.body.error).toContain("body contains unknown properties: extra");
    expect(response.body.details).toEqual({ message: response.body.error });
  });

  it("refuses wrong types with SCHEMA_ERROR naming the field", async () => {
    const response = await server.request(path, {
      method: "PATCH",
      headers: project.headers("admin"),
      body: { display_name: 42 },
    });
    expectKnownError(response, 400, "SCHEMA_ERROR");
    expect(response.body.error).toContain("body.display_name");
  });

  it("refuses unknown query parameters", async () => {
    const response = await server.request("/api/v1/projects/current?extra=1", {
      headers: project.headers("client"),
    });
    expectKnownError(response, 400, "SCHEMA_ERROR");
    expect(response.body.error).toContain("query contains unknown properties: extra");
  });

  it("parses form-encoded bodies", async () => {
    const response = await server.request(path, {
      method: "PATCH",
      headers: { ...project.headers("admin"), "content-type": "application/x-www-form-urlencoded" },
      body: "display_name=From+a+form",
    });
    expect(response.status).toBe(200);
    expect(response.body.display_name).toBe("From a form");
  });
});
