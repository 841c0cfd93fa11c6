// @vitest-environment happy-dom
import { gatehouseInternals } from "@gatehouse/js";
import { beforeAll, describe, expect, it } from "vitest";
import { createTestProject, type TestProject, testServerForFile } from "../testing/gatehouse.ts";
import { button, byText, click, findText, render, waitFor } from "../testing/render.tsx";
import { Impersonate } from "./impersonate.tsx";

const gatehouse = testServerForFile();
let project: TestProject;

beforeAll(async () => {
  project = await createTestProject(gatehouse());
});

const ONE_HOUR = 60 * 60 * 1000;

function openLink(tokens: { accessToken: string; refreshToken: string }) {
  const fragment = new URLSearchParams({
    access_token: tokens.accessToken,
    refresh_token: tokens.refreshToken,
  });
  window.history.replaceState(null, "", `/handler/impersonate#${fragment}`);
}

async function impersonationOf(displayName = "Robin Vega") {
  const user = await project.createUser({ displayName });
  const tokens = await project.server.createSession({
    userId: user.id,
    isImpersonation: true,
    expiresInMillis: ONE_HOUR,
  });
  return { user, tokens };
}

describe("Impersonate", () => {
  it("takes the tokens out of the address, shows who, and signs in only on Continue", async () => {
    const { user, tokens } = await impersonationOf();
    openLink(tokens);
    const { app, navigated } = await project.client();
    const page = await render(app, <Impersonate />);
    expect(window.location.hash).toBe("");
    expect(window.location.href).not.toContain(tokens.refreshToken);
    await findText(page, "Continue as Robin Vega");
    expect(byText(page, user.email)).not.toBeNull();
    expect(byText(page, /This browser will be signed in as Robin Vega/)).not.toBeNull();
    expect(await app.getUser()).toBeNull();

    await click(button(page, "Continue as Robin Vega"));
    await waitFor(() => navigated.includes("/"));
    expect((await app.getUser())?.id).toBe(user.id);
    expect(await app.getRefreshToken()).toBe(tokens.refreshToken);
  });

  it("stores nothing on Cancel", async () => {
    const { tokens } = await impersonationOf("Casey Cancel");
    openLink(tokens);
    const { app, navigated } = await project.client();
    const page = await render(app, <Impersonate />);
    await click(await waitFor(() => byText(page, "Cancel")?.closest("button")));
    await waitFor(() => navigated.includes("/"));
    expect(await app.getUser()).toBeNull();
    expect(await app.getRefreshToken()).toBeNull();
  });

  it("refuses the tokens of an ordinary sign-in (login CSRF)", async () => {
    const attacker = await project.createUser({ displayName: "Mallory" });
    const { app: attackerApp } = await project.client({ signedInAs: attacker });
    openLink({
      accessToken: (await attackerApp.getAccessToken())!,
      refreshToken: (await attackerApp.getRefreshToken())!,
    });
    const { app } = await project.client();
    const page = await render(app, <Impersonate />);
    await findText(page, /does not carry an impersonation session/);
    expect(byText(page, /Continue as/)).toBeNull();
    expect(await app.getUser()).toBeNull();
  });

  it("refuses a session a server made without the impersonation mark", async () => {
    const user = await project.createUser();
    openLink(await project.server.createSession({ userId: user.id }));
    const { app } = await project.client();
    const page = await render(app, <Impersonate />);
    await findText(page, /does not carry an impersonation session/);
    expect(await app.getUser()).toBeNull();
  });

  it("stores the session's own fresh access token, never another one from the link", async () => {
    const { user, tokens } = await impersonationOf("Robin Mixed");
    const other = await project.createUser({ displayName: "Someone Else" });
    const { app: otherApp } = await project.client({ signedInAs: other });
    openLink({ accessToken: (await otherApp.getAccessToken())!, refreshToken: tokens.refreshToken });
    const { app, navigated } = await project.client();
    const page = await render(app, <Impersonate />);
    await click(await waitFor(() => byText(page, "Continue as Robin Mixed")?.closest("button")));
    await waitFor(() => navigated.includes("/"));
    expect((await app.getUser())?.id).toBe(user.id);
  });

  it.each([
    ["no fragment", "/handler/impersonate", /This impersonation link is incomplete/],
    ["no refresh token", "/handler/impersonate#access_token=x", /This impersonation link is incomplete/],
    ["garbage", "/handler/impersonate#access_token=x&refresh_token=garbage", /not valid here/],
  ])("explains a link with %s", async (_case, address, message) => {
    window.history.replaceState(null, "", address);
    const { app } = await project.client();
    const page = await render(app, <Impersonate />);
    await findText(page, message);
    expect(await app.getUser()).toBeNull();
  });

  it("explains the link of a session that was revoked", async () => {
    const { tokens } = await impersonationOf("Revoked Robin");
    const { app: holder } = await project.client();
    await holder[gatehouseInternals].signInWithTokens(tokens);
    await holder.signOut();
    openLink(tokens);
    const { app } = await project.client();
    const page = await render(app, <Impersonate />);
    await findText(page, /not valid here/);
  });
});
