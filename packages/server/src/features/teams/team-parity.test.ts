/**
 * Team answers as the reference gives them (issue 35 item 4), with the requests its SDK sends: `team.delete()` may
 * carry a body, which is ignored; `team.update({displayName: ""})` empties the name; a team the client is not in is
 * TEAM_MEMBERSHIP_NOT_FOUND, whether or not it exists; a server naming an unknown creator gets USER_NOT_FOUND; a
 * client's picture that is not an inline image is the plain 400 "Invalid profile image URL".
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, expectPlainError } from "../../testing/known-errors.ts";
import { createSignedInUser } from "../../testing/users.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Team parity");
  await project.configure({ "teams.allowClientTeamCreation": true });
});
afterAll(() => server.close());

async function member() {
  const { user, accessToken } = await createSignedInUser(server, project.id, { displayName: "Member" });
  return { id: user.id, headers: project.headers("client", { "x-stack-access-token": accessToken }) };
}

async function teamOf(headers: Record<string, string>, name = "Parity") {
  const response = await server.request("/api/v1/teams", {
    method: "POST",
    headers,
    body: { display_name: name, creator_user_id: "me" },
  });
  expect(response.status, response.text).toBe(201);
  return response.body.id as string;
}

describe("DELETE /teams/{id}", () => {
  it("ignores a body, for clients and servers", async () => {
    const ada = await member();
    for (const headers of [ada.headers, project.headers("server")]) {
      const teamId = await teamOf(ada.headers);
      const response = await server.request(`/api/v1/teams/${teamId}`, {
        method: "DELETE",
        headers,
        body: { anything: ["the", "SDK", "sends"] },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body).toEqual({ success: true });
      expectKnownError(
        await server.request(`/api/v1/teams/${teamId}`, { headers: project.headers("server") }),
        404,
        "TEAM_NOT_FOUND",
      );
    }
  });
});

describe("PATCH /teams/{id}", () => {
  it("accepts an empty display_name", async () => {
    const ada = await member();
    const teamId = await teamOf(ada.headers);
    for (const headers of [ada.headers, project.headers("server")]) {
      await server.request(`/api/v1/teams/${teamId}`, {
        method: "PATCH",
        headers,
        body: { display_name: "x" },
      });
      const response = await server.request(`/api/v1/teams/${teamId}`, {
        method: "PATCH",
        headers,
        body: { display_name: "" },
      });
      expect(response.status, response.text).toBe(200);
      expect(response.body.display_name).toBe("");
    }
  });
});

describe("a team the client is not in", () => {
  it("is TEAM_MEMBERSHIP_NOT_FOUND on read, update and delete, also when it does not exist", async () => {
    const ada = await member();
    const eve = await member();
    const adasTeam = await teamOf(ada.headers);
    for (const teamId of [adasTeam, randomUuid()]) {
      const details = { team_id: teamId, user_id: eve.id };
      const path = `/api/v1/teams/${teamId}`;
      expectKnownError(
        await server.request(path, { headers: eve.headers }),
        404,
        "TEAM_MEMBERSHIP_NOT_FOUND",
        details,
      );
      expectKnownError(
        await server.request(path, { method: "PATCH", headers: eve.headers, body: { display_name: "Mine" } }),
        404,
        "TEAM_MEMBERSHIP_NOT_FOUND",
        details,
      );
      expectKnownError(
        await server.request(path, { method: "DELETE", headers: eve.headers }),
        404,
        "TEAM_MEMBERSHIP_NOT_FOUND",
        details,
      );
    }
    const read = await server.request(`/api/v1/teams/${adasTeam}`, { headers: project.headers("server") });
    expect(read.body.display_name).toBe("Parity");
  });
});

describe("POST /teams", () => {
  it("with an unknown creator is USER_NOT_FOUND (404)", async () => {
    const response = await server.request("/api/v1/teams", {
      method: "POST",
      headers: project.headers("server"),
      body: { display_name: "Orphan", creator_user_id: randomUuid() },
    });
    expectKnownError(response, 404, "USER_NOT_FOUND");
  });

  it("refuses a client's picture that is not an inline image with the plain 400, on create and update", async () => {
    const ada = await member();
    const teamId = await teamOf(ada.headers);
    const url = "https://example.com/logo.png";
    const created = await server.request("/api/v1/teams", {
      method: "POST",
      headers: ada.headers,
      body: { display_name: "Pictured", creator_user_id: "me", profile_image_url: url },
    });
    expectPlainError(created, 400, "Invalid profile image URL");
    const updated = await server.request(`/api/v1/teams/${teamId}`, {
      method: "PATCH",
      headers: ada.headers,
      body: { profile_image_url: url },
    });
    expectPlainError(updated, 400, "Invalid profile image URL");
  });
});
