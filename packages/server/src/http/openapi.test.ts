import { describe, expect, it } from "vitest";
import { featureRoutes } from "../features/routes.ts";
import { createTestServer } from "../testing/harness.ts";
import { buildOpenApiDocument } from "./openapi.ts";

describe("OpenAPI document", () => {
  const document = buildOpenApiDocument(featureRoutes);

  it("lists every route with its method", () => {
    for (const route of featureRoutes) {
      const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
      expect(
        document.paths[path]?.[route.method.toLowerCase()],
        `${route.method} ${route.path}`,
      ).toBeDefined();
    }
  });

  it("documents request bodies, path parameters and response schemas", () => {
    const patch = document.paths["/internal/api-keys/{api_key_id}"]?.patch as any;
    expect(patch.parameters).toContainEqual(
      expect.objectContaining({ name: "api_key_id", in: "path", required: true }),
    );
    expect(patch.requestBody.content["application/json"].schema.properties).toHaveProperty("revoked");
    expect(patch.responses["200"].content["application/json"].schema.properties).toHaveProperty(
      "created_at_millis",
    );
    expect(patch["x-access-types"]).toEqual(["admin"]);
  });

  it("is served at /api/v1/openapi.json, with a docs page", async () => {
    const server = await createTestServer();
    try {
      const json = await server.request("/api/v1/openapi.json");
      expect(json.status).toBe(200);
      expect(json.body.openapi).toBe("3.1.0");
      expect(Object.keys(json.body.paths).length).toBeGreaterThan(5);
      const docs = await server.request("/api/v1/docs");
      expect(docs.headers.get("content-type")).toContain("text/html");
      // The page is plain HTML with a stylesheet: no script may run on it.
      expect(docs.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(docs.text).not.toContain("<script");
      for (const route of featureRoutes)
        expect(docs.text).toContain(route.summary.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`));
    } finally {
      await server.close();
    }
  });
});
