/**
 * Purchase codes are read without being spent (purchase-codes.ts), so guessing them is held back per address
 * (`purchaseCodePerIp`): every read of a code counts, before the code is looked at, on each route that reads one.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { paymentsApi, TEST_CATALOGUE } from "./test-support.ts";

let server: TestServer;
let project: TestProject;

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
  project = await server.createProject("Guessed Co");
  await project.configure({
    ...TEST_CATALOGUE,
    "gatehouse.rateLimits.purchaseCodePerIp": { limit: 3, windowSeconds: 300 },
  });
});
afterAll(() => server.close());

const fromAddress = (ip: string) => ({ "x-forwarded-for": ip });

const validate = (fullCode: string, ip: string) =>
  server.request("/api/v1/payments/purchases/validate-code", {
    method: "POST",
    headers: fromAddress(ip),
    body: { full_code: fullCode },
  });

describe("purchase code guessing (purchaseCodePerIp)", () => {
  it("answers 429 with Retry-After once an address used its reads, for the right code too", async () => {
    const { user } = await createSignedInUser(server, project.id);
    const { fullCode } = await paymentsApi(server, project).purchaseUrl({
      customer_type: "user",
      customer_id: user.id,
      product_id: "starter",
    });
    const guess = (n: number) => `${project.id}_${String(n).padStart(45, "0")}`;
    for (let n = 0; n < 3; n++) {
      const wrong = await validate(guess(n), "10.20.0.1");
      expect(wrong.status).toBe(404);
      expect(wrong.body.code).toBe("VERIFICATION_CODE_NOT_FOUND");
    }
    const refused = await validate(guess(3), "10.20.0.1");
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
    expect(Number(refused.headers.get("retry-after"))).toBeLessThanOrEqual(300);
    // Past the limit, a guess that happens to be right learns nothing either.
    expect((await validate(fullCode, "10.20.0.1")).status).toBe(429);
    const buy = await server.request("/api/v1/internal/payments/test-mode-purchase-session", {
      method: "POST",
      headers: fromAddress("10.20.0.1"),
      body: { full_code: fullCode, price_id: "monthly" },
    });
    expect(buy.status).toBe(429);

    // Another address is counted apart and gets the page.
    const elsewhere = await validate(fullCode, "10.20.0.2");
    expect(elsewhere.status, elsewhere.text).toBe(200);
    expect(elsewhere.body.product.display_name).toBe("Starter");

    // The project's number decides: raised, the first address reads on in the same window.
    await project.configure({ "gatehouse.rateLimits.purchaseCodePerIp": { limit: 10, windowSeconds: 300 } });
    expect((await validate(fullCode, "10.20.0.1")).status).toBe(200);
  });
});
