import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TEST_CATALOGUE } from "../../../server/src/features/payments/test-support.ts";
import { appsFor } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;

beforeAll(async () => {
  gh = await startGatehouse();
  const project = await gh.createProject("Payments ledger");
  await project.configure(TEST_CATALOGUE);
  apps = appsFor(gh, project);
});
afterAll(() => gh?.close());

describe("AdminApp.listTransactions", () => {
  it("lists grants and item changes newest first, page by page, filtered by type and customer", async () => {
    const server = apps.server();
    const user = await server.createUser({ displayName: "Ledger" });
    await user.grantProduct({ productId: "lifetime" });
    const credits = await user.getItem("credits");
    await credits.increaseQuantity(5);
    await credits.decreaseQuantity(2);
    const team = await server.createTeam({ displayName: "Ledger team" });
    await team.grantProduct({ productId: "team-plan" });

    const admin = apps.admin();
    const all = await admin.listTransactions();
    expect(all.nextCursor).toBeNull();
    expect(all.transactions.map((transaction) => transaction.type)).toEqual([
      "purchase",
      "manual-item-quantity-change",
      "manual-item-quantity-change",
      "purchase",
    ]);
    expect(all.transactions[1]!.entries[0]).toMatchObject({
      type: "item_quantity_change",
      customer_type: "user",
      customer_id: user.id,
      item_id: "credits",
      quantity: -2,
    });
    expect(all.transactions[3]).toMatchObject({
      test_mode: false,
      adjusted_by: [],
      entries: [{ type: "product_grant", product_id: "lifetime", customer_id: user.id }],
    });

    const seen: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await admin.listTransactions({ limit: 1, cursor });
      expect(page.transactions.length).toBeLessThanOrEqual(1);
      seen.push(...page.transactions.map((transaction) => transaction.id));
      cursor = page.nextCursor ?? undefined;
    } while (cursor);
    expect(seen).toEqual(all.transactions.map((transaction) => transaction.id));

    expect((await admin.listTransactions({ type: "purchase" })).transactions).toHaveLength(2);
    expect((await admin.listTransactions({ type: "chargeback" })).transactions).toEqual([]);
    const forTeams = await admin.listTransactions({ customerType: "team" });
    expect(forTeams.transactions.map((transaction) => transaction.entries[0]!.customer_id)).toEqual([
      team.id,
    ]);
    expect((await admin.listTransactions({ customerId: user.id })).transactions).toHaveLength(3);
  });

  it("is an admin call", () => {
    expect("listTransactions" in apps.server()).toBe(false);
  });
});
