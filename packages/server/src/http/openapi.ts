import { z } from "zod";
import { escapeHtml } from "./html.ts";
import { HTML_SECURITY_HEADERS } from "./html-security-headers.ts";
import { textResponse } from "./responses.ts";
import { type AnyRoute, defineRoute } from "./route.ts";

function jsonSchema(schema: z.ZodType, io: "input" | "output"): unknown {
  return z.toJSONSchema(schema, { io, unrepresentable: "any", target: "draft-2020-12" });
}

function parametersOf(schema: z.ZodType | undefined, location: "path" | "query") {
  if (!schema) return [];
  const json = jsonSchema(schema, "input") as { properties?: Record<string, unknown>; required?: string[] };
  return Object.entries(json.properties ?? {}).map(([name, propertySchema]) => ({
    name,
    in: location,
    required: location === "path" || (json.required ?? []).includes(name),
    schema: propertySchema,
  }));
}

/** The OpenAPI 3.1 document, built from the same route declarations that drive validation. */
export function buildOpenApiDocument(routes: readonly AnyRoute[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const path = route.path.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
    const spec = route.response;
    let responses: Record<string, unknown>;
    if ("raw" in spec) {
      responses = { default: { description: spec.description } };
    } else if ("safeParse" in spec.body) {
      responses = {
        [String(spec.status ?? 200)]: {
          description: "Success",
          content: { "application/json": { schema: jsonSchema(spec.body as z.ZodType, "output") } },
        },
      };
    } else {
      const perAccess = spec.body as Record<string, z.ZodType>;
      responses = {
        [String(spec.status ?? 200)]: {
          description: "Success; the shape depends on the access type (client, server, admin).",
          content: {
            "application/json": {
              schema: {
                oneOf: Object.entries(perAccess).map(([accessType, schema]) => ({
                  title: accessType,
                  ...(jsonSchema(schema, "output") as object),
                })),
              },
            },
          },
        },
      };
    }
    const pathItem = paths[path] ?? {};
    paths[path] = pathItem;
    pathItem[route.method.toLowerCase()] = {
      summary: route.summary,
      tags: route.tags,
      "x-access-types": route.access,
      parameters: [
        ...parametersOf(route.request?.params, "path"),
        ...parametersOf(route.request?.query, "query"),
      ],
      ...(route.request?.body
        ? {
            requestBody: {
              required: true,
              content: { "application/json": { schema: jsonSchema(route.request.body, "input") } },
            },
          }
        : {}),
      responses: {
        ...responses,
        "4XX": { description: "A known error (`x-stack-known-error` header) or a plain-text error." },
      },
    };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Gatehouse API",
      version: "1",
      description:
        "Authentication and user management. Send `x-stack-project-id` and `x-stack-access-type` plus the key of that access type.",
    },
    servers: [{ url: "/api/v1" }],
    paths,
  };
}

/** The reference page: every colour at least 4.5:1 on its background, light and dark (e2e/dashboard/accessibility.test.ts). */
function docsPage(routes: readonly AnyRoute[]): string {
  const byTag = new Map<string, AnyRoute[]>();
  for (const route of routes) {
    const tag = route.tags[0] ?? "Other";
    byTag.set(tag, [...(byTag.get(tag) ?? []), route]);
  }
  const sections = [...byTag.entries()]
    .map(
      ([tag, list]) =>
        `<h2>${escapeHtml(tag)}</h2><table>${list
          .map(
            (r) =>
              `<tr><td class="m ${r.method}">${r.method}</td><td><code>/api/v1${escapeHtml(r.path)}</code></td><td>${escapeHtml(r.summary)}</td><td class="a">${escapeHtml(Array.isArray(r.access) ? r.access.join(", ") : "public")}</td></tr>`,
          )
          .join("")}</table>`,
    )
    .join("");
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gatehouse API reference</title><style>
:root{color-scheme:light dark;--fg:#1a1a2e;--bg:#fff;--line:#ddd;--row:#eee;--muted:#595959;--link:#0055b3;
--get:#007a55;--post:#0055b3;--patch:#8a5300;--delete:#b01f1f}
@media (prefers-color-scheme:dark){:root{--fg:#eee;--bg:#111;--line:#333;--row:#2a2a2a;--muted:#a8a8a8;--link:#8ab4ff;
--get:#3ddc97;--post:#6cb4ff;--patch:#f0b35a;--delete:#ff7b7b}}
body{font:15px/1.5 system-ui,sans-serif;max-width:1000px;margin:2rem auto;padding:0 1rem;color:var(--fg);background:var(--bg)}
a{color:var(--link)}h1{margin-bottom:.2rem}h2{margin-top:2rem;border-bottom:1px solid var(--line)}
table{border-collapse:collapse;width:100%}td{padding:.3rem .5rem;border-bottom:1px solid var(--row);vertical-align:top}
.m{font-weight:600;font-family:monospace;width:4.5rem}.GET{color:var(--get)}.POST{color:var(--post)}
.PATCH,.PUT{color:var(--patch)}.DELETE{color:var(--delete)}.a{color:var(--muted);white-space:nowrap}
</style></head><body><main><h1>Gatehouse API reference</h1><p>The machine-readable document is at
<a href="/api/v1/openapi.json"><code>/api/v1/openapi.json</code></a>. Every route below is served under
<code>/api/v1</code> and <code>/api/latest</code>.</p>${sections}</main></body></html>`;
}

/** `GET /openapi.json` and `GET /docs`, generated from the given routes. */
export function openApiRoutes(routes: readonly AnyRoute[]): AnyRoute[] {
  let cached: string | undefined;
  return [
    defineRoute({
      method: "GET",
      path: "/openapi.json",
      summary: "The OpenAPI 3.1 document of this API",
      tags: ["Meta"],
      access: "public",
      response: { raw: true, description: "The OpenAPI document" },
      handler: async () => {
        cached ??= JSON.stringify(buildOpenApiDocument(routes));
        return new Response(cached, {
          headers: {
            "content-type": "application/json; charset=utf-8",
            "cache-control": "public, max-age=60",
          },
        });
      },
    }),
    defineRoute({
      method: "GET",
      path: "/docs",
      summary: "A human-readable API reference",
      tags: ["Meta"],
      access: "public",
      response: { raw: true, description: "An HTML page" },
      handler: async () =>
        textResponse(docsPage(routes), 200, {
          ...HTML_SECURITY_HEADERS,
          "content-type": "text/html; charset=utf-8",
        }),
    }),
  ];
}
