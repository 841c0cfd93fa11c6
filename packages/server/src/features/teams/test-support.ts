/** Request helpers shared by the teams tests. */
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, beforeEach, expect } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { TINY_PNG_DATA_URL } from "../../testing/images.ts";
import { codeFromEmail, latestEmailTo } from "../../testing/outbox.ts";
import { expireRows } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { users } from "../users/schema.ts";
import type { NewUser } from "../users/service.ts";
import { verificationCodes } from "../verification-codes/schema.ts";
import { teamInvitations } from "./schema.ts";
import { seamState } from "./test-seam.ts";

export type Reply = Awaited<ReturnType<TestServer["request"]>>;
export type Caller =
  | "server"
  | "admin"
  | { token: string; headers?: Record<string, string> }
  | "client-anonymous";

export type TeamsApi = ReturnType<typeof teamsApi>;

/**
 * Requests to `project` as a given caller, and the objects the teams tests start from: users, teams, and
 * invitations (`invite`, `expire`).
 */
export function teamsApi(server: TestServer, project: TestProject) {
  const headersFor = (caller: Caller) => {
    if (caller === "server" || caller === "admin") return project.headers(caller);
    if (caller === "client-anonymous") return project.headers("client");
    return project.headers("client", { "x-stack-access-token": caller.token, ...caller.headers });
  };
  const call = (method: string, path: string, caller: Caller, body?: unknown) =>
    server.request(`/api/v1${path}`, {
      method,
      headers: headersFor(caller),
      ...(body === undefined ? {} : { body }),
    });
  const api = {
    get: (path: string, caller: Caller) => call("GET", path, caller),
    post: (path: string, caller: Caller, body: unknown = {}) => call("POST", path, caller, body),
    patch: (path: string, caller: Caller, body: unknown) => call("PATCH", path, caller, body),
    del: (path: string, caller: Caller) => call("DELETE", path, caller),
    /** A signed-in user of this project; `as` is what the helpers take as the caller. */
    user: async (input: NewUser = {}) => {
      const created = await createSignedInUser(server, project.id, input);
      return { ...created, as: { token: created.accessToken } };
    },
    /** A team made by the server, with `members` added as plain members. */
    team: async (displayName = "Team", members: string[] = []) => {
      const created = await call("POST", "/teams", "server", { display_name: displayName });
      expect(created.status, created.text).toBe(201);
      for (const userId of members) {
        const added = await call("POST", `/team-memberships/${created.body.id}/${userId}`, "server", {});
        expect(added.status, added.text).toBe(201);
      }
      return created.body as { id: string; display_name: string };
    },
    selectedTeamOf: async (userId: string) => {
      const [row] = await server.deps.db
        .select({ selectedTeamId: users.selectedTeamId })
        .from(users)
        .where(and(eq(users.projectId, project.id), eq(users.id, userId)));
      return row?.selectedTeamId ?? null;
    },
  };
  return {
    ...api,
    /** Invites `email` to a new team (as the server unless told): the team, invitation id and emailed code. */
    invite: async (
      email: string,
      options: { by?: Caller; team?: { id: string; display_name: string } } = {},
    ) => {
      const team = options.team ?? (await api.team("Rocket"));
      const sent = await api.post("/team-invitations/send-code", options.by ?? "server", {
        team_id: team.id,
        email,
        callback_url: CALLBACK,
      });
      expect(sent.status, sent.text).toBe(200);
      const code = codeFromEmail((await latestEmailTo(server, project.id, email)).text);
      return { team, id: sent.body.id as string, code };
    },
    /** Moves an invitation and its code into the past (no sleeping in tests). */
    expire: async (invitationId: string) => {
      const [row] = await server.deps.db
        .select({ codeId: teamInvitations.codeId })
        .from(teamInvitations)
        .where(eq(teamInvitations.id, invitationId));
      await expireRows(server, teamInvitations, eq(teamInvitations.id, invitationId));
      await expireRows(server, verificationCodes, eq(verificationCodes.id, row!.codeId));
    },
  };
}

export const UNKNOWN_ID = "00000000-0000-4000-8000-000000000000";
/** A (tiny) inline picture, the only kind clients may upload; it is stored and answered as a URL. */
export const PNG = TINY_PNG_DATA_URL;

let emailCounter = 0;
/** A recipient address no other test in the file uses (the outbox is read per address). */
export function freshEmail(): string {
  emailCounter += 1;
  return `invitee${emailCounter}@example.com`;
}

export const CALLBACK = "http://localhost:3000/handler/team-invitation";

/**
 * The opening of the teams test files that stand in for the permission checks (`vi.mock("./permission-seam.ts")`):
 * one server and project for the file, closed after it, and the requests to it, handed to `opened` before the
 * first test; the seam's denials and grants are cleared before each test.
 */
export function openTeamsTestFile(
  projectName: string,
  opened: (file: { server: TestServer; project: TestProject; api: TeamsApi }) => void,
): void {
  let server: TestServer | undefined;
  beforeAll(async () => {
    server = await createTestServer();
    const project = await server.createProject(projectName);
    opened({ server, project, api: teamsApi(server, project) });
  });
  afterAll(() => server?.close());
  beforeEach(() => {
    seamState.denied.clear();
    seamState.grants.length = 0;
  });
}
