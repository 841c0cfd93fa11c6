/**
 * Bad input gets a clear 4xx (a known error from the catalogue, or a plain message), never a 5xx.
 * Every route of the registry gets a battery of malformed path parameters, bodies and query strings, generated from
 * its zod declarations, so a new route is covered without a new test.
 */
import { knownErrorCatalogue } from "@gatehouse/shared";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiRoutes } from "../features/routes.ts";
import { createTestServer, type TestProject, type TestServer } from "../testing/harness.ts";
import {
  BAD_PATH_VALUES,
  BAD_QUERY_VALUES,
  badJsonValues,
  concretePath,
  objectShapes,
  pathParams,
  routeName,
  sampleObject,
} from "../testing/route-inputs.ts";
import { createSignedInUser } from "../testing/users.ts";
import type { AccessType } from "./access-type.ts";
import type { AnyRoute } from "./route.ts";

/**
 * Routes whose 5xx on some bad input is known and not yet fixed: route -> why. Keep it empty; every entry is a
 * bug to fix.
 */
const KNOWN_5XX: Record<string, string> = {};

type Case = { label: string; path: string; body?: string; query?: URLSearchParams };

let server: TestServer;
let project: TestProject;
let accessToken: string;
/** Existing ids and valid values by parameter or field name, for the parts of a request a case leaves intact. */
let hints: Record<string, string>;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Bad input project");
  // Features that are off by default refuse before they look at the input: turn them on to reach the handlers.
  const enabled = await server.request("/api/v1/internal/projects/current", {
    method: "PATCH",
    headers: project.headers("admin"),
    body: {
      config: {
        allow_user_api_keys: true,
        allow_team_api_keys: true,
        client_team_creation_enabled: true,
        client_user_deletion_enabled: true,
        magic_link_enabled: true,
        passkey_enabled: true,
      },
    },
  });
  expect(enabled.status, enabled.text).toBe(200);
  const signedIn = await createSignedInUser(server, project.id, {
    primaryEmail: "owner@example.com",
    primaryEmailVerified: true,
    displayName: "Owner",
  });
  accessToken = signedIn.accessToken;
  const team = await server.request("/api/v1/teams", {
    method: "POST",
    headers: project.headers("server"),
    body: { display_name: "Team", creator_user_id: signedIn.user.id },
  });
  expect(team.status, team.text).toBe(201);
  const channels = await server.request(`/api/v1/contact-channels?user_id=${signedIn.user.id}`, {
    headers: project.headers("server"),
  });
  hints = {
    user_id: signedIn.user.id,
    team_id: team.body.id,
    project_id: project.id,
    contact_channel_id: channels.body.items[0].id,
    level: "environment",
    provider_id: "github",
    permission_id: "team_member",
    email: "owner@example.com",
    // OAuth clients are projects: their id and publishable key.
    client_id: project.id,
    client_secret: project.keys.publishableClientKey,
  };
});
afterAll(() => server.close());

/**
 * Who calls a route: the highest access type it allows, and also a client when clients may call it (client
 * requests take paths of their own: `me`, ownership checks). Both carry the signed-in user's token.
 */
function callersOf(route: AnyRoute): (AccessType | "public")[] {
  if (route.access === "public") return ["public"];
  const allowed = route.access as readonly AccessType[];
  const highest = allowed.includes("admin") ? "admin" : allowed.includes("server") ? "server" : "client";
  return highest !== "client" && allowed.includes("client") ? [highest, "client"] : [highest];
}

function headersFor(caller: AccessType | "public"): Record<string, string> {
  if (caller === "public") return {};
  return project.headers(caller, { "x-stack-access-token": accessToken });
}

function baseQuery(route: AnyRoute): URLSearchParams {
  const schema = route.request?.query;
  const query = new URLSearchParams();
  if (!schema) return query;
  for (const [name, value] of Object.entries(sampleObject(schema, hints))) {
    if (value !== undefined) query.set(name, String(value));
  }
  return query;
}

function baseBody(route: AnyRoute): string | undefined {
  if (route.method === "GET") return undefined;
  const schema = route.request?.body;
  return schema ? JSON.stringify(sampleObject(schema, hints)) : undefined;
}

function pathCases(route: AnyRoute): Case[] {
  const cases: Case[] = [];
  for (const param of pathParams(route.path)) {
    for (const bad of BAD_PATH_VALUES) {
      const path = concretePath(
        route.path,
        { ...hints, [param]: bad.value },
        new Set(bad.raw ? [param] : []),
      );
      cases.push({
        label: `path ${param} = ${bad.label}`,
        path,
        body: baseBody(route),
        query: baseQuery(route),
      });
    }
  }
  return cases;
}

/**
 * `allFields` false (the second, client pass): only id fields get wrong values, since the schema checks the rest
 * the same for every caller and the handlers differ by caller mainly in whose ids they look up.
 */
function bodyCases(route: AnyRoute, allFields: boolean): Case[] {
  if (route.method === "GET") return [];
  const path = concretePath(route.path, hints);
  const query = baseQuery(route);
  const whole = (label: string, body: string): Case => ({ label: `body ${label}`, path, body, query });
  const schema = route.request?.body;
  // Without a body schema `{}` is a valid (empty) body, and sending it could really sign out or delete.
  const cases = [
    whole("null", "null"),
    whole("[]", "[]"),
    whole('"string"', '"string"'),
    whole("that is not JSON", "{not json"),
  ];
  if (!schema) return [...cases, whole("with an unexpected field", '{"unexpected":1}')];
  cases.push(whole("{}", "{}"));
  for (const shape of objectShapes(schema)) {
    const base = sampleObject(schema, hints, shape);
    cases.push(whole("with an unknown extra field", JSON.stringify({ ...base, unexpected_field: 1 })));
    for (const [field, fieldSchema] of Object.entries(shape)) {
      if (!allFields && !field.endsWith("id")) continue;
      for (const value of badJsonValues(fieldSchema)) {
        const shown = JSON.stringify(value).slice(0, 40);
        cases.push(whole(`field ${field} = ${shown}`, JSON.stringify({ ...base, [field]: value })));
      }
    }
  }
  return cases;
}

function queryCases(route: AnyRoute): Case[] {
  const path = concretePath(route.path, hints);
  const body = baseBody(route);
  const schema = route.request?.query;
  const unexpected = new URLSearchParams("unexpected=1&unexpected=2");
  if (!schema) return [{ label: "query with unexpected repeated parameters", path, body, query: unexpected }];
  const cases: Case[] = [];
  for (const shape of objectShapes(schema)) {
    for (const field of Object.keys(shape)) {
      for (const value of BAD_QUERY_VALUES) {
        const query = baseQuery(route);
        query.set(field, value);
        cases.push({ label: `query ${field} = ${JSON.stringify(value).slice(0, 40)}`, path, body, query });
      }
      const repeated = baseQuery(route);
      repeated.append(field, "first");
      repeated.append(field, "second");
      cases.push({ label: `query ${field} repeated`, path, body, query: repeated });
    }
  }
  const extra = baseQuery(route);
  extra.set("unexpected_parameter", "1");
  cases.push({ label: "query with an unknown parameter", path, body, query: extra });
  return cases;
}

const knownCodes = new Set(Object.keys(knownErrorCatalogue));

/** What is wrong with a response to bad input, or null: a 5xx, or a 4xx that is neither known error nor message. */
function problemWith(response: Awaited<ReturnType<TestServer["request"]>>): string | null {
  const excerpt = response.text.slice(0, 300);
  if (response.status >= 500) return `${response.status}: ${excerpt}`;
  if (response.status < 400) return null;
  const code = response.headers.get("x-stack-known-error");
  if (code !== null) {
    if (knownCodes.has(code) && response.body?.code === code) return null;
    return `${response.status} with a known-error header ${code} that the catalogue or body does not match`;
  }
  const contentType = response.headers.get("content-type") ?? "";
  if (contentType.startsWith("text/plain") && response.text.trim() !== "") return null;
  // The OAuth token endpoint answers in the error format of RFC 6749 §5.2, which OAuth clients expect.
  if (typeof response.body?.error === "string" && typeof response.body?.error_description === "string")
    return null;
  return `${response.status} that is neither a known error nor a plain message: ${contentType} ${excerpt}`;
}

describe.each(apiRoutes.map((route) => [routeName(route), route] as const))("%s", (name, route) => {
  it.each(callersOf(route))(
    "answers %s malformed path parameters, bodies and queries with a clear 4xx",
    async (caller) => {
      const headers = headersFor(caller);
      const problems: string[] = [];
      for (const testCase of [
        ...pathCases(route),
        ...bodyCases(route, caller !== "client" || callersOf(route).length === 1),
        ...queryCases(route),
      ]) {
        const search = testCase.query?.toString();
        const response = await server.request(`${testCase.path}${search ? `?${search}` : ""}`, {
          method: route.method,
          headers,
          ...(testCase.body === undefined ? {} : { body: testCase.body }),
        });
        const problem = problemWith(response);
        if (problem) problems.push(`${testCase.label} -> ${problem}`);
      }
      if (name in KNOWN_5XX) {
        expect(
          problems.every((problem) => /^5\d\d:/.test(problem)),
          problems.join("\n"),
        ).toBe(true);
        return;
      }
      expect(problems, `${name} (${caller}) mishandles bad input:\n${problems.join("\n")}`).toEqual([]);
    },
  );
});

it("leaves the project and the signed-in user working (the battery was refused, not obeyed)", async () => {
  const me = await server.request("/api/v1/users/me", {
    headers: project.headers("client", { "x-stack-access-token": accessToken }),
  });
  expect(me.status, me.text).toBe(200);
  expect(me.body.primary_email).toBe("owner@example.com");
});
