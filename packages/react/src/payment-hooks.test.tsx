// @vitest-environment happy-dom
import { act, Suspense } from "react";
import { beforeAll, describe, expect, it, vi } from "vitest";
import { TEST_CATALOGUE } from "../../server/src/features/payments/test-catalogue.ts";
import { useItem, useProducts } from "./hooks.ts";
import { createTestProject, type TestProject, testServerForFile } from "./testing/gatehouse.ts";
import { Catch, findText, render, renderCountingFallbacks } from "./testing/render.tsx";

const gatehouse = testServerForFile();
let project: TestProject;

beforeAll(async () => {
  project = await createTestProject(gatehouse());
  await (await project.admin.getProject()).updateConfig(TEST_CATALOGUE);
});

function Billing({ team }: { team?: { id: string } }) {
  const item = useItem(team ? "seats" : "credits", { team });
  const products = useProducts({ team });
  const plans = products.map((product) => {
    const ending = product.subscription?.cancelAtPeriodEnd ? " (ending)" : "";
    return `${product.id}${ending}`;
  });
  return <p>{item ? `${item.displayName}: ${item.quantity}; ${plans.join(",") || "none"}` : "signed out"}</p>;
}

describe("useItem and useProducts", () => {
  it("show the user's items and products, and follow the SDK's writes without showing the loading state again", async () => {
    const user = await project.createUser();
    const serverUser = (await project.server.getUser(user.id))!;
    await serverUser.grantProduct({ productId: "starter" });
    const { app } = await project.client({ signedInAs: user });
    const { page, fallbacks } = await renderCountingFallbacks(app, <Billing />);
    await findText(page, "Credits: 100; starter");
    const before = fallbacks();
    // A change made elsewhere (another app), then a write through this app: the hooks read both.
    await (await serverUser.getItem("credits")).increaseQuantity(5);
    await act(async () => {
      await app.cancelSubscription({ productId: "starter" });
    });
    await findText(page, "Credits: 105; starter (ending)");
    expect(fallbacks()).toBe(before);
  });

  it("read a team's items and products for its admin", async () => {
    const user = await project.createUser();
    const team = await project.server.createTeam({ displayName: "Seat owners", creatorUserId: user.id });
    await team.grantProduct({ productId: "team-plan" });
    const { app } = await project.client({ signedInAs: user });
    const page = await render(
      app,
      <Suspense fallback={<p>loading</p>}>
        <Billing team={team} />
      </Suspense>,
    );
    await findText(page, "Seats: 5; team-plan");
  });

  it("read nothing when signed out, and throw an unknown item to the error boundary", async () => {
    const { app, routesCalled } = await project.client();
    const page = await render(
      app,
      <Suspense fallback={<p>loading</p>}>
        <Billing />
      </Suspense>,
    );
    await findText(page, "signed out");
    expect(routesCalled().filter((route) => route.includes("/payments/"))).toEqual([]);

    // React reports the error it hands to the boundary; that report is expected here.
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const user = await project.createUser();
    const signedIn = await project.client({ signedInAs: user });
    function Gold() {
      return <p>{useItem("gold")?.quantity}</p>;
    }
    const failed = await render(
      signedIn.app,
      <Catch>
        <Suspense fallback={<p>loading</p>}>
          <Gold />
        </Suspense>
      </Catch>,
    );
    await findText(failed, "caught:ITEM_NOT_FOUND");
    quiet.mockRestore();
  });
});
