import type { z } from "zod";
import type { AppDeps } from "../deps.ts";
import type { AccessType } from "./access-type.ts";
import type { RequestAuth } from "./request-auth.ts";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** Schemas of the parts of a request. Objects are strict: unknown properties are a SCHEMA_ERROR. */
export type RequestSchemas = {
  params?: z.ZodType;
  query?: z.ZodType;
  body?: z.ZodType;
};

/**
 * How a route answers. One schema for everyone, or one per access type: the handler returns the fullest view and
 * the response is parsed through the caller's schema, which strips what that caller may not see.
 */
export type ResponseSpec =
  | { status?: number; body: z.ZodType }
  | { status?: number; body: { client: z.ZodType; server: z.ZodType; admin?: z.ZodType } }
  /** The handler builds the `Response` itself (redirects, plain text); `description` documents it. */
  | { raw: true; description: string };

/**
 * Who may call: a list of access types (the request must carry project auth of one of them), or "public"
 * for routes that read no project auth at all (health, JWKS, the OAuth token endpoint).
 */
export type RouteAccess = readonly AccessType[] | "public";

type Infer<S> = S extends z.ZodType ? z.output<S> : undefined;

export type RouteContext<S extends RequestSchemas, A extends RouteAccess> = {
  deps: AppDeps;
  /** Present whenever `access` lists access types. */
  auth: A extends "public" ? null : RequestAuth;
  params: Infer<S["params"]>;
  query: Infer<S["query"]>;
  body: Infer<S["body"]>;
  /** The body as sent, for routes declared with `rawBody: true` (which have no body schema); null otherwise. */
  rawBody: string | null;
  request: Request;
  requestId: string;
  /** The caller's IP as seen by this server (behind a proxy: see GATEHOUSE_TRUST_PROXY). */
  clientIp: string | null;
};

/** What a handler gives back: a body (with the route's status), a body with an explicit status, or a Response. */
export type RouteResult = Response | { status?: number; body: unknown; headers?: Record<string, string> };

export type RouteDefinition<
  S extends RequestSchemas = RequestSchemas,
  A extends RouteAccess = RouteAccess,
> = {
  method: HttpMethod;
  /** Path below `/api/v1`, Hono syntax (`/users/:user_id`). */
  path: string;
  summary: string;
  tags: readonly string[];
  access: A;
  request?: S;
  /**
   * A second credential the route takes besides its access types' keys: `authorization: Bearer <token>`, checked
   * by the feature that declares the route (the webhook portal's token). Consulted only when the request names no
   * access type; it resolves to the caller or throws a 401. The token is good for the routes that declare this.
   */
  bearerAuth?: (deps: AppDeps, token: string) => Promise<RequestAuth>;
  /**
   * Hands the body to the handler as the exact text sent (`rawBody`) instead of parsing it: for a webhook whose
   * signature covers those bytes. Such a route declares no body schema and checks the body itself.
   */
  rawBody?: true;
  response: ResponseSpec;
  handler: (ctx: RouteContext<S, A>) => Promise<RouteResult>;
};

/** Declares a route. The one declaration drives validation, access checks, response trimming and OpenAPI. */
export function defineRoute<S extends RequestSchemas, const A extends RouteAccess>(
  definition: RouteDefinition<S, A>,
): RouteDefinition<S, A> {
  return definition;
}

// biome-ignore lint/suspicious/noExplicitAny: a registry holds routes of every shape.
export type AnyRoute = RouteDefinition<any, any>;

/** A route's declaration less what its group gives it (method, path, tags, access). */
export type GroupedRoute<S extends RequestSchemas, A extends RouteAccess> = Omit<
  RouteDefinition<S, A>,
  "method" | "path" | "tags" | "access"
>;

/**
 * Declares routes that share their tags and who may call, one call per route: `admin.get(path, { summary, … })`
 * is `defineRoute({ method: "GET", path, tags, access, summary, … })` with the group's tags and access.
 */
export function routeGroup<const A extends RouteAccess>(shared: { tags: readonly string[]; access: A }) {
  const declare =
    (method: HttpMethod) =>
    <S extends RequestSchemas>(path: string, route: GroupedRoute<S, A>): RouteDefinition<S, A> =>
      defineRoute<S, A>({ method, path, ...shared, ...route });
  return {
    get: declare("GET"),
    post: declare("POST"),
    put: declare("PUT"),
    patch: declare("PATCH"),
    delete: declare("DELETE"),
  };
}
