/**
 * Webhooks from the receiver's side, against a real server: a sign-up through the SDK reaches a real HTTP receiver
 * as a signed `user.created`, which `verifyWebhook` accepts under either header set and refuses when anything is
 * off (body, secret, age). The test checks the same messages with an independent implementation of the scheme
 * (webhooks/test-support.ts), and drives the admin app's webhook methods.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  independentlyVerified,
  type ReceivedMessage,
  type Receiver,
  startReceiver,
  startTestWorker,
} from "../../../server/src/features/webhooks/test-support.ts";
import type { WebhookWorker } from "../../../server/src/features/webhooks/worker.ts";
import type { TestProject } from "../../../server/src/testing/harness.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";
import { verifyWebhook, WebhookVerificationError } from "./verify-webhook.ts";

let gh: RunningGatehouse;
let worker: WebhookWorker;
let project: TestProject;
let apps: ReturnType<typeof appsFor>;
const receivers: Receiver[] = [];

beforeAll(async () => {
  gh = await startGatehouse();
  worker = await startTestWorker(gh.gatehouse);
  project = await gh.createProject("SDK webhooks");
  apps = appsFor(gh, project);
});
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((receiver) => receiver.close()));
});
afterAll(async () => {
  await worker.stop();
  await gh?.close();
});

/** Adds an endpoint through the portal API, authorized by the admin app's portal token. */
async function addEndpoint(url: string, eventTypes: string[] = []) {
  const { token } = await apps.admin().getSvixToken();
  const response = await fetch(`${gh.baseUrl}/api/v1/webhooks-portal/endpoints`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
    body: JSON.stringify({ url, event_types: eventTypes }),
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { id: string; secret: string };
}

function svixOnly(message: ReceivedMessage): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(message.headers)) {
    if (!name.startsWith("webhook-") && typeof value === "string") headers[name] = value;
  }
  return headers;
}

async function refusal(promise: Promise<unknown>): Promise<string> {
  const error = await promise.then(
    () => null,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(WebhookVerificationError);
  return (error as WebhookVerificationError).reason;
}

describe("a sign-up", () => {
  let message: ReceivedMessage;
  let secret: string;
  let email: string;

  beforeAll(async () => {
    const receiver = await startReceiver();
    receivers.push(receiver);
    secret = (await addEndpoint(receiver.url, ["user.created"])).secret;
    email = uniqueEmail("hooked");
    await apps.client().signUpWithCredential({ email, password: "a password 123" });
    await worker.drain();
    expect(receiver.messages).toHaveLength(1);
    message = receiver.messages[0]!;
  });

  it("arrives as a signed user.created with the server user", async () => {
    const event = await verifyWebhook<{ id: string; primary_email: string }>(
      secret,
      message.body,
      message.headers,
    );
    expect(event.type).toBe("user.created");
    expect(event.data).toMatchObject({ primary_email: email, has_password: true });
    const user = await apps.server().getUser(event.data.id);
    expect(user?.primaryEmail).toBe(email);
    // A second, independent implementation of the scheme agrees.
    expect(await independentlyVerified(secret, message.headers, message.body)).toBe(true);
  });

  it("verifies with the svix-* headers alone, and with fetch Headers and bytes", async () => {
    expect((await verifyWebhook(secret, message.body, svixOnly(message))).type).toBe("user.created");
    const headers = new Headers(message.headers as Record<string, string>);
    expect((await verifyWebhook(secret, new TextEncoder().encode(message.body), headers)).type).toBe(
      "user.created",
    );
  });

  it("refuses another body, another secret, a missing header or a stale timestamp", async () => {
    const sentAt = Number(message.headers["webhook-timestamp"]) * 1000;
    expect(
      await refusal(
        verifyWebhook(secret, message.body.replace("user.created", "user.deleted"), message.headers),
      ),
    ).toBe("invalid-signature");
    expect(
      await refusal(
        verifyWebhook(`whsec_${btoa("some other 24-byte key!!")}`, message.body, message.headers),
      ),
    ).toBe("invalid-signature");
    const { "webhook-signature": _dropped, ...withoutSignature } = message.headers;
    expect(
      await refusal(verifyWebhook(secret, message.body, { ...withoutSignature, "svix-id": undefined })),
    ).toBe("missing-headers");
    expect(
      await refusal(verifyWebhook(secret, message.body, message.headers, { now: sentAt + 301_000 })),
    ).toBe("timestamp-out-of-tolerance");
    expect(
      await refusal(verifyWebhook(secret, message.body, message.headers, { now: sentAt - 301_000 })),
    ).toBe("timestamp-out-of-tolerance");
    await expect(
      verifyWebhook(secret, message.body, message.headers, { now: sentAt + 299_000 }),
    ).resolves.toBeTruthy();
    expect(
      await refusal(
        verifyWebhook(secret, message.body, message.headers, { now: sentAt + 11_000, toleranceSeconds: 10 }),
      ),
    ).toBe("timestamp-out-of-tolerance");
  });

  it("accepts any matching entry of several (a rotated secret)", async () => {
    const signature = String(message.headers["webhook-signature"]);
    const headers = { ...message.headers, "webhook-signature": `v1,${btoa("x".repeat(32))} ${signature}` };
    expect((await verifyWebhook(secret, message.body, headers)).type).toBe("user.created");
  });
});

describe("the admin app", () => {
  it("getSvixToken gives the portal token and its page", async () => {
    const { token, url } = await apps.admin().getSvixToken();
    expect(url).toBe(`${gh.gatehouse.deps.env.baseUrl}/webhooks-portal#token=${token}`);
  });

  it("sendTestWebhook reports success, or the endpoint's answer", async () => {
    const ok = await startReceiver();
    const failing = await startReceiver(() => ({ status: 500, body: "broken" }));
    receivers.push(ok, failing);
    const okEndpoint = await addEndpoint(ok.url);
    const failingEndpoint = await addEndpoint(failing.url);
    const admin = apps.admin();
    expect(await admin.sendTestWebhook({ endpointId: okEndpoint.id })).toEqual({
      status: "ok",
      data: undefined,
    });
    const event = await verifyWebhook(okEndpoint.secret, ok.messages[0]!.body, ok.messages[0]!.headers);
    expect(event).toEqual({ type: "stack.test", data: { message: expect.any(String), endpointUrl: ok.url } });
    expect(await admin.sendTestWebhook({ endpointId: failingEndpoint.id })).toEqual({
      status: "error",
      error: { errorMessage: "The endpoint answered 500: broken" },
    });
  });
});
