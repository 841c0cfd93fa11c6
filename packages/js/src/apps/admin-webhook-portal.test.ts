import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HttpStatusError } from "../http/errors.ts";
import { appsFor } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import { openWebhookPortal, readWebhookPortalToken } from "./admin-webhook-portal.ts";

/** The webhook portal's SDK methods, with an admin app and with a portal token alone, against a real server. */
let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;
let projectId: string;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Webhook portal SDK");
  projectId = project.id;
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

describe("the webhook portal methods", () => {
  it("manage endpoints with the admin app, and the same endpoints with a portal token", async () => {
    const admin = apps.admin();
    const created = await admin.webhookPortal.createEndpoint({
      url: "http://localhost:9/hooks",
      description: "Billing",
      eventTypes: ["user.created", "team.created"],
    });
    expect(created.secret).toMatch(/^whsec_/);
    expect(created).toMatchObject({
      url: "http://localhost:9/hooks",
      description: "Billing",
      eventTypes: ["user.created", "team.created"],
      enabled: true,
    });
    expect(created.createdAt).toBeInstanceOf(Date);

    const { token, url } = await admin.getSvixToken();
    expect(url).toContain(`/webhooks-portal#token=${token}`);
    expect(readWebhookPortalToken(token)?.projectId).toBe(projectId);
    expect(readWebhookPortalToken(token)!.expiresAt.getTime()).toBeGreaterThan(Date.now());

    const portal = openWebhookPortal({ baseUrl: gh.baseUrl, token });
    expect((await portal.listEndpoints()).map((endpoint) => endpoint.id)).toEqual([created.id]);
    expect((await portal.listEventTypes()).map((type) => type.name)).toContain("stack.test");

    const updated = await portal.updateEndpoint(created.id, { eventTypes: [], enabled: false });
    expect(updated).toMatchObject({ eventTypes: [], enabled: false, description: "Billing" });
    expect(await admin.webhookPortal.getEndpoint(created.id)).toMatchObject({ enabled: false });

    const rotated = await portal.rotateEndpointSecret(created.id);
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(created.secret);

    const test = await portal.sendTestEvent(created.id);
    expect(test).toMatchObject({ endpointId: created.id, eventType: "stack.test" });
    const deliveries = await admin.webhookPortal.listDeliveries(created.id, { limit: 5 });
    expect(deliveries.map((delivery) => delivery.id)).toContain(test.id);

    await portal.deleteEndpoint(created.id);
    expect(await admin.webhookPortal.listEndpoints()).toEqual([]);
  });

  it("throws the server's refusal in words for a token that does not open the portal", async () => {
    const portal = openWebhookPortal({ baseUrl: gh.baseUrl, token: "ghwp_e30.AAAA" });
    const error = await portal.listEndpoints().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(401);
    expect((error as HttpStatusError).responseText).toContain("invalid or has expired");
    expect(readWebhookPortalToken("ghwp_e30.AAAA")).toBeNull();
    expect(readWebhookPortalToken("not a token")).toBeNull();
  });

  it("throws the server's refusal of an endpoint URL", async () => {
    const error = await apps
      .admin()
      .webhookPortal.createEndpoint({ url: "ftp://example.com/hooks" })
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(HttpStatusError);
    expect((error as HttpStatusError).status).toBe(400);
    expect((error as HttpStatusError).responseText).toBe("The endpoint URL must use http or https.");
  });
});
