/**
 * Item quantities (PROTOCOL-EXTRA §2.2-2.3): reads, manual changes on the append-only ledger, the refusal below zero
 * that holds under 50 parallel decrements, expiring changes, and who may read or change which customer.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { setClock } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { paymentsApi, TEST_CATALOGUE } from "./test-support.ts";

let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof paymentsApi>;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Credits Co");
  await project.configure(TEST_CATALOGUE);
  api = paymentsApi(server, project);
});
afterAll(async () => {
  await server.close();
});

describe("reading an item", () => {
  it("is 0 for an item never changed, with the catalogue's display name", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const response = await api.call("server", "GET", `/payments/items/user/${user.id}/credits`);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ id: "credits", display_name: "Credits", quantity: 0 });
  });

  it("answers an unknown item, a customer type mismatch and an unknown customer with the catalogue's errors", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const unknown = await api.call("server", "GET", `/payments/items/user/${user.id}/gold`);
    expect([unknown.status, unknown.body.code]).toEqual([404, "ITEM_NOT_FOUND"]);
    const prototypeKey = await api.call("server", "GET", `/payments/items/user/${user.id}/constructor`);
    expect(prototypeKey.body.code).toBe("ITEM_NOT_FOUND");
    const mismatch = await api.call("server", "GET", `/payments/items/user/${user.id}/seats`);
    expect([mismatch.status, mismatch.body.code]).toEqual([400, "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH"]);
    expect(mismatch.body.details).toMatchObject({ item_customer_type: "team", actual_customer_type: "user" });
    const nobody = await api.call("server", "GET", "/payments/items/user/not-a-user/credits");
    expect(nobody.body.code).toBe("USER_NOT_FOUND");
    const noTeam = await api.call("server", "GET", `/payments/items/team/${crypto.randomUUID()}/seats`);
    expect(noTeam.body.code).toBe("TEAM_NOT_FOUND");
    const badType = await api.call("server", "GET", `/payments/items/robot/${user.id}/credits`);
    expect([badType.status, badType.body.code]).toEqual([400, "SCHEMA_ERROR"]);
  });

  it("never reads another project's customer", async () => {
    const { user } = await createSignedInUser(server, project.id);
    expect((await api.change(`user/${user.id}`, "credits", 7, false)).status).toBe(200);
    const other = await server.createProject("Other Co");
    await other.configure(TEST_CATALOGUE);
    const read = await paymentsApi(server, other).call(
      "server",
      "GET",
      `/payments/items/user/${user.id}/credits`,
    );
    expect(read.body.code).toBe("USER_NOT_FOUND");
    const custom = await paymentsApi(server, other)
      .quantity(`custom/${user.id}`, "credits")
      .catch((e) => String(e));
    expect(custom).toMatch(/ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH/);
  });
});

describe("changing a quantity", () => {
  it("adds signed changes and refuses to go below zero unless allowed, writing nothing when refused", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    expect((await api.change(customer, "credits", 10, false)).body).toEqual({});
    const refused = await api.change(customer, "credits", -15, false);
    expect([refused.status, refused.body.code]).toEqual([400, "ITEM_QUANTITY_INSUFFICIENT_AMOUNT"]);
    expect(refused.body.details).toEqual({ item_id: "credits", customer_id: user.id, quantity: -15 });
    expect(await api.quantity(customer, "credits")).toBe(10);
    expect((await api.change(customer, "credits", -15, true)).status).toBe(200);
    expect(await api.quantity(customer, "credits")).toBe(-5);
    // A grant pays what is owed first.
    expect((await api.change(customer, "credits", 8, false)).status).toBe(200);
    expect(await api.quantity(customer, "credits")).toBe(3);
  });

  it("takes any string as a custom customer", async () => {
    await project.configure({ "payments.items.api-calls": { customerType: "custom" } });
    expect((await api.change("custom/org:42", "api-calls", 3, false)).status).toBe(200);
    expect(await api.quantity("custom/org:42", "api-calls")).toBe(3);
    expect(await api.quantity("custom/org:43", "api-calls")).toBe(0);
    // Path parameters are decoded once: "x%41" and "xA" are two customers, and "a/b" is one.
    expect((await api.change("custom/x%2541", "api-calls", 2, false)).status).toBe(200);
    expect(await api.quantity("custom/xA", "api-calls")).toBe(0);
    expect(await api.quantity("custom/x%2541", "api-calls")).toBe(2);
    expect((await api.change("custom/a%2Fb", "api-calls", 4, false)).status).toBe(200);
    expect(await api.quantity("custom/a%2Fb", "api-calls")).toBe(4);
  });

  it("gives exactly 10 of 50 parallel decrements of a quantity of 10", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    await api.change(customer, "credits", 10, false);
    const results = await Promise.all(
      Array.from({ length: 50 }, () => api.change(customer, "credits", -1, false)),
    );
    const statuses = results.map((result) => result.status);
    expect(statuses.filter((status) => status === 200)).toHaveLength(10);
    expect(results.filter((r) => r.body.code === "ITEM_QUANTITY_INSUFFICIENT_AMOUNT")).toHaveLength(40);
    expect(await api.quantity(customer, "credits")).toBe(0);
  });

  it("ends an expiring grant at its expiry, taking only what is left of it", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    const start = Date.now();
    const restore = setClock(start);
    try {
      await api.change(customer, "credits", 100, false);
      setClock(start + 1000);
      await api.change(customer, "credits", 10, false, {
        expires_at: new Date(start + 3600_000).toISOString(),
        description: "trial bonus",
      });
      setClock(start + 2000);
      await api.change(customer, "credits", -4, false);
      expect(await api.quantity(customer, "credits")).toBe(106);
      setClock(start + 2 * 3600_000);
      // The bonus was used first (it expires soonest): 6 of it go, the 100 stay.
      expect(await api.quantity(customer, "credits")).toBe(100);
    } finally {
      restore();
    }
  });

  it("refuses bad changes with clear 400s", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const customer = `user/${user.id}`;
    const noFlag = await api.call("server", "POST", `/payments/items/${customer}/credits/update-quantity`, {
      delta: 1,
    });
    expect([noFlag.status, noFlag.body.code]).toEqual([400, "SCHEMA_ERROR"]);
    for (const body of [{ delta: 1.5 }, { delta: "1" }, { delta: 0 }, {}, { delta: 1, extra: true }]) {
      const response = await api.call(
        "server",
        "POST",
        `/payments/items/${customer}/credits/update-quantity?allow_negative=false`,
        body,
      );
      expect([response.status, response.body.code], JSON.stringify(body)).toEqual([400, "SCHEMA_ERROR"]);
    }
    const past = await api.change(customer, "credits", 1, false, { expires_at: "2000-01-01T00:00:00Z" });
    expect(past.status).toBe(400);
    expect(past.text).toMatch(/expires_at must be in the future/);
    expect(await api.quantity(customer, "credits")).toBe(0);
  });
});

describe("client access", () => {
  it("lets a signed-in user read only their own items, and never change them", async () => {
    const me = await createSignedInUser(server, project.id);
    const other = await createSignedInUser(server, project.id);
    await api.change(`user/${me.user.id}`, "credits", 5, false);
    const token = { "x-stack-access-token": me.accessToken };
    const own = await api.call(
      "client",
      "GET",
      `/payments/items/user/${me.user.id}/credits`,
      undefined,
      token,
    );
    expect([own.status, own.body.quantity]).toEqual([200, 5]);
    const theirs = await api.call(
      "client",
      "GET",
      `/payments/items/user/${other.user.id}/credits`,
      undefined,
      token,
    );
    expect(theirs.status).toBe(403);
    const anonymous = await api.call("client", "GET", `/payments/items/user/${me.user.id}/credits`);
    expect(anonymous.body.code).toBe("USER_AUTHENTICATION_REQUIRED");
    const custom = await api.call("client", "GET", "/payments/items/custom/org:1/credits", undefined, token);
    expect(custom.status).toBe(403);
    const write = await api.call(
      "client",
      "POST",
      `/payments/items/user/${me.user.id}/credits/update-quantity?allow_negative=false`,
      { delta: 100 },
      token,
    );
    expect(write.status).toBeGreaterThanOrEqual(400);
    expect(write.status).toBeLessThan(500);
    expect(await api.quantity(`user/${me.user.id}`, "credits")).toBe(5);
  });

  it("lets a team admin read the team's items, and refuses members without team_admin and outsiders", async () => {
    const admin = await createSignedInUser(server, project.id);
    const member = await createSignedInUser(server, project.id);
    const outsider = await createSignedInUser(server, project.id);
    const team = await api.call("server", "POST", "/teams", {
      display_name: "Seat owners",
      creator_user_id: admin.user.id,
    });
    expect(team.status, team.text).toBe(201);
    const teamId = team.body.id;
    const joined = await api.call("server", "POST", `/team-memberships/${teamId}/${member.user.id}`, {});
    expect(joined.status, joined.text).toBeLessThan(300);
    await api.change(`team/${teamId}`, "seats", 3, false);
    const read = (who: { accessToken: string }) =>
      api.call("client", "GET", `/payments/items/team/${teamId}/seats`, undefined, {
        "x-stack-access-token": who.accessToken,
      });
    expect((await read(admin)).body.quantity).toBe(3);
    expect((await read(member)).body.code).toBe("TEAM_PERMISSION_REQUIRED");
    expect((await read(outsider)).body.code).toBe("TEAM_MEMBERSHIP_NOT_FOUND");
  });
});
