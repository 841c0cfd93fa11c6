// @vitest-environment happy-dom
import { gatehouseInternals } from "@gatehouse/js";
import { act, Suspense } from "react";
import { beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GatehouseHandler } from "./components/handler.tsx";
import { SignIn } from "./components/sign-in.tsx";
import { useTeams, useUser } from "./hooks.ts";
import { STYLE_ELEMENT_ID } from "./styles.ts";
import { createTestProject, type TestProject, testServerForFile } from "./testing/gatehouse.ts";
import { Catch, findText, render, renderCountingFallbacks, waitFor } from "./testing/render.tsx";

const gatehouse = testServerForFile();
let project: TestProject;

beforeAll(async () => {
  project = await createTestProject(gatehouse(), { clientTeamCreationEnabled: true });
});
beforeEach(() => window.history.replaceState(null, "", "/"));

function Name() {
  const user = useUser();
  return <p>{user ? `user:${user.displayName}` : "signed out"}</p>;
}

describe("the provider", () => {
  it("puts the stylesheet in the page once, and themes and words components as told", async () => {
    const { app } = await project.client();
    const page = await render(app, <SignIn />, { theme: "dark", strings: { signInTitle: "Anmelden" } });
    await render(app, <SignIn />);
    await findText(page, "Anmelden");
    expect(document.querySelectorAll(`#${STYLE_ELEMENT_ID}`).length).toBe(1);
    expect(document.getElementById(STYLE_ELEMENT_ID)?.textContent).toContain("--gh-primary");
    expect(page.querySelector(".gh-root")?.getAttribute("data-gh-theme")).toBe("dark");
  });
});

describe("useUser", () => {
  it("follows sign-in and sign-out without showing the loading state again", async () => {
    const user = await project.createUser({ displayName: "Sam Rivera" });
    const tokens = await project.server.createSession({ userId: user.id });
    const { app } = await project.client();
    const { page, fallbacks } = await renderCountingFallbacks(app, <Name />);
    await findText(page, "signed out");
    await act(async () => {
      await app[gatehouseInternals].signInWithTokens(tokens);
    });
    await findText(page, "user:Sam Rivera");
    const before = fallbacks();
    await act(async () => {
      await app.signOut({ redirectUrl: "/" });
    });
    await findText(page, "signed out");
    expect(fallbacks()).toBe(before);
    // The sign-out ended the session on the server too.
    const sessions = await (await project.server.getUser(user.id))!.getActiveSessions();
    expect(sessions).toEqual([]);
  });

  it("sends a signed-out visitor to sign-in with the way back, for or: redirect", async () => {
    window.history.replaceState(null, "", "/protected?tab=2");
    const { app, navigated } = await project.client();
    function Protected() {
      const user = useUser({ or: "redirect" });
      return <p>{user.displayName}</p>;
    }
    await render(
      app,
      <Suspense fallback={<p>loading</p>}>
        <Protected />
      </Suspense>,
    );
    await waitFor(() => navigated.length > 0);
    expect(navigated).toEqual(["/handler/sign-in?after_auth_return_to=%2Fprotected%3Ftab%3D2"]);
  });

  it("throws USER_AUTHENTICATION_REQUIRED for or: throw", async () => {
    // React reports the error it hands to the boundary; that report is expected here.
    const quiet = vi.spyOn(console, "error").mockImplementation(() => {});
    const { app } = await project.client();
    function Strict() {
      useUser({ or: "throw" });
      return <p>never</p>;
    }
    const page = await render(
      app,
      <Catch>
        <Suspense fallback={<p>loading</p>}>
          <Strict />
        </Suspense>
      </Catch>,
    );
    await findText(page, "caught:USER_AUTHENTICATION_REQUIRED");
    quiet.mockRestore();
  });
});

describe("useTeams", () => {
  it("lists the user's teams and shows a new one after the SDK's write, without flicker", async () => {
    const user = await project.createUser();
    const first = await project.server.createTeam({ displayName: "First" });
    await first.addUser!(user.id);
    const { app } = await project.client({ signedInAs: user });
    function Teams() {
      return (
        <p>
          {useTeams()
            .map((team) => team.displayName)
            .join(",") || "none"}
        </p>
      );
    }
    const { page, fallbacks } = await renderCountingFallbacks(app, <Teams />);
    await findText(page, "First");
    const before = fallbacks();
    await act(async () => {
      await (await app.getUser({ or: "throw" })).createTeam({ displayName: "Second" });
    });
    await findText(page, "First,Second");
    expect(fallbacks()).toBe(before);
  });
});

describe("GatehouseHandler", () => {
  it("shows the page the address names and follows pushState", async () => {
    window.history.replaceState(null, "", "/handler/forgot-password");
    const { app } = await project.client();
    const page = await render(app, <GatehouseHandler />);
    await findText(page, "Reset your password");
    await act(async () => window.history.pushState(null, "", "/handler/sign-up"));
    await findText(page, "Create your account");
    await act(async () => window.history.pushState(null, "", "/handler/nope"));
    await findText(page, "This page does not exist.");
  });

  it("works under another base path", async () => {
    window.history.replaceState(null, "", "/auth/mfa");
    const { app } = await project.client();
    const page = await render(app, <GatehouseHandler basePath="/auth/" />);
    await findText(page, "This sign-in attempt has expired. Sign in again.");
  });
});
