import { knownError } from "@gatehouse/shared";
import type { Context, Hono } from "hono";
import type { z } from "zod";
import type { AppDeps } from "../deps.ts";
import type { AccessType } from "./access-type.ts";
import { withProtocolHeaders } from "./api-middleware.ts";
import { parseRequestBody } from "./body.ts";
import { resolveRequestAuth } from "./request-auth.ts";
import { jsonResponse } from "./responses.ts";
import type { AnyRoute, ResponseSpec } from "./route.ts";
import { type LocatedIssue, requestProblemsError } from "./schema-error.ts";

/** Both prefixes serve the same routes (PROTOCOL.md §1.1). */
export const API_PREFIXES = ["/api/v1", "/api/latest"] as const;

/** Registers each route under every API prefix. Errors thrown here are turned into responses by the app. */
export function mountRoutes(app: Hono, routes: readonly AnyRoute[], deps: AppDeps): void {
  for (const route of routes) {
    for (const prefix of API_PREFIXES) {
      app.on(route.method, prefix + route.path, (c) => handleRoute(c, route, deps));
    }
  }
}

async function handleRoute(c: Context, route: AnyRoute, deps: AppDeps): Promise<Response> {
  const request = c.req.raw;
  const displayPath = new URL(request.url).pathname;
  // A route that verifies a signature over the exact bytes sent (a payment provider's webhook) gets them as text.
  const rawText = route.rawBody ? await request.text() : null;
  const rawBody = route.rawBody ? undefined : await parseRequestBody(request);

  let auth = null;
  if (route.access !== "public") {
    const bearer = route.bearerAuth ? bearerToken(request.headers) : null;
    auth = await resolveRequestAuth(deps, request.headers);
    if (!auth && bearer !== null && route.bearerAuth) auth = await route.bearerAuth(deps, bearer);
    if (!auth) throw knownError("ACCESS_TYPE_REQUIRED");
    const allowed = route.access as readonly AccessType[];
    if (!allowed.includes(auth.accessType)) {
      throw knownError(
        "INSUFFICIENT_ACCESS_TYPE",
        { actual_access_type: auth.accessType, allowed_access_types: [...allowed] },
        `The x-stack-access-type header must be ${allowed.map((a) => `'${a}'`).join(" or ")}, but was '${auth.accessType}'.`,
      );
    }
  }

  // Every part is checked before answering, so that one SCHEMA_ERROR lists all problems, path parameters first.
  const problems: LocatedIssue[] = [];
  const validate = (location: string, schema: z.ZodType | undefined, value: unknown) => {
    const found = (issues: readonly z.core.$ZodIssue[]) => {
      for (const issue of issues) problems.push({ location, issue });
      return undefined;
    };
    if (!schema) {
      // Routes without a body schema accept no body, or an empty JSON object (the SDK sends `{}`).
      if (location === "body" && value !== undefined && !isEmptyObject(value)) {
        return found([{ code: "custom", path: [], message: "must be empty", input: value }]);
      }
      if (location === "query" && !isEmptyObject(value)) {
        const keys = Object.keys(value as object);
        return found([
          { code: "unrecognized_keys", keys, path: [], message: "", input: value as Record<string, unknown> },
        ]);
      }
      return undefined;
    }
    const result = schema.safeParse(value);
    return result.success ? result.data : found(result.error.issues);
  };

  // Hono has decoded the path parameters already; decoding again would make "x%41" and "xA" one id.
  const params = validate("params", route.request?.params, c.req.param());
  const query = validate(
    "query",
    route.request?.query,
    Object.fromEntries(new URL(request.url).searchParams),
  );
  const body = validate("body", route.request?.body, rawBody);
  if (problems.length > 0) throw requestProblemsError(request.method, displayPath, problems);

  const result = await route.handler({
    deps,
    auth,
    params,
    query,
    body,
    rawBody: rawText,
    request,
    requestId: c.get("requestId" as never) as string,
    clientIp: c.get("clientIp" as never) as string | null,
  });
  if (result instanceof Response) return result;

  const spec = route.response;
  if ("raw" in spec) throw new Error(`Route ${route.method} ${route.path} is raw but returned a body`);
  const schema = responseSchemaFor(spec, auth?.accessType ?? "client");
  const parsed = schema.safeParse(result.body);
  if (!parsed.success) {
    throw new Error(
      `Response of ${route.method} ${route.path} does not match its schema: ${JSON.stringify(parsed.error.issues)}`,
    );
  }
  return withProtocolHeaders(c, result.headers, (headers) =>
    jsonResponse(parsed.data, result.status ?? spec.status ?? 200, headers),
  );
}

/** The response schema for a caller: per-access-type specs fall back from admin to server. */
export function responseSchemaFor(
  spec: Exclude<ResponseSpec, { raw: true }>,
  accessType: AccessType,
): z.ZodType {
  const body = spec.body;
  if ("safeParse" in body) return body as z.ZodType;
  const perAccess = body as { client: z.ZodType; server: z.ZodType; admin?: z.ZodType };
  if (accessType === "admin") return perAccess.admin ?? perAccess.server;
  return perAccess[accessType];
}

/** The token of an `authorization: Bearer <token>` header, or null. */
function bearerToken(headers: Headers): string | null {
  const match = /^Bearer\s+(\S+)\s*$/i.exec(headers.get("authorization") ?? "");
  return match ? match[1]! : null;
}

function isEmptyObject(value: unknown): boolean {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && Object.keys(value).length === 0
  );
}
