import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Demo, linkFrom, screenshot, startDemo, uniqueEmail } from "./test-support.ts";

/** Teams from the account settings: create one, invite someone, and that person accepts the e-mailed invitation. */
let demo: Demo;

beforeAll(async () => {
  demo = await startDemo({ clientTeamCreationEnabled: true });
}, 120_000);

afterAll(async () => {
  await demo?.close();
});

async function signIn(page: Page, email: string, password: string) {
  await page.getByLabel("E-mail", { exact: true }).fill(email);
  await page.getByRole("textbox", { name: "Password", exact: true }).fill(password);
  await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
}

describe("teams in the browser", () => {
  const alice = uniqueEmail("alice");
  const bob = uniqueEmail("bob");
  const password = "team password 1";
  let aliceId = "";
  let bobId = "";
  let teamId = "";

  beforeAll(async () => {
    aliceId = await demo.createUser(alice, password, { displayName: "Alice Martin" });
    bobId = await demo.createUser(bob, password, { displayName: "Bob Stone" });
  });

  it("creates a team and invites someone by e-mail", async () => {
    const { context, page, errors } = await demo.newPage();
    await page.goto(`${demo.url}/handler/account-settings#teams`);
    await page.waitForURL(/\/handler\/sign-in\?after_auth_return_to=/);
    await signIn(page, alice, password);
    await page.waitForURL(/\/handler\/account-settings/);
    await page.getByRole("heading", { name: "Teams", exact: true }).waitFor();
    await page.getByText("You are not in any team yet.").waitFor();
    await screenshot(page, "account-settings");

    await page.getByRole("button", { name: "Create a team" }).click();
    await page.getByRole("button", { name: "Create a team" }).click();
    await page.getByText("This field is required.").waitFor();
    await page.getByLabel("Team name").fill("Acme Research");
    await screenshot(page, "account-settings-create-team");
    await page.getByRole("button", { name: "Create a team" }).click();
    await page.getByRole("list", { name: "Teams" }).getByText("Acme Research").waitFor();
    // The new team is selected, and the switcher in the header shows it.
    await page.getByRole("button", { name: "Switch team" }).getByText("Acme Research").waitFor();

    const teams = await (await demo.server.getUser(aliceId))!.listTeams();
    expect(teams.map((team) => team.displayName)).toEqual(["Acme Research"]);
    teamId = teams[0]!.id;
    expect((await demo.server.getUser(aliceId))?.selectedTeamId).toBe(teamId);

    await page.getByRole("list", { name: "Teams" }).getByRole("button", { name: "Manage" }).click();
    await page.waitForURL(new RegExp(`team=${teamId}`));
    await page.getByRole("heading", { name: "Team settings: Acme Research" }).waitFor();
    await page.getByRole("list", { name: "Members" }).getByText("Alice Martin").waitFor();

    await page.getByLabel("E-mail of the person to invite").fill("not an email");
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText("Enter a valid e-mail address.").waitFor();
    await page.getByLabel("E-mail of the person to invite").fill(bob);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await page.getByText(`Invitation sent to ${bob}.`).waitFor();
    await page.locator(".gh-list").getByText(bob).waitFor();
    await screenshot(page, "team-settings");

    const team = await demo.server.getTeam(teamId);
    const invitations = await team!.listInvitations();
    expect(invitations.map((invitation) => invitation.recipientEmail)).toEqual([bob]);

    await page.getByRole("button", { name: "Switch team" }).click();
    await screenshot(page, "team-switcher");
    expect(errors).toEqual([]);
    await context.close();
  });

  it("accepts the invitation as the invited person, signing in on the way", async () => {
    const { context, page, errors } = await demo.newPage();
    const { text } = await demo.latestEmail(bob);
    await page.goto(linkFrom(text));
    await page.getByText("Sign in or create an account to accept the invitation.").waitFor();
    await screenshot(page, "team-invitation-signed-out");
    await page.locator(".gh-card").getByRole("button", { name: "Sign in", exact: true }).click();
    await page.waitForURL(/\/handler\/sign-in\?after_auth_return_to=/);
    await signIn(page, bob, password);

    await page.waitForURL(/\/handler\/team-invitation\?code=/);
    await page.getByText("You have been invited to join Acme Research.").waitFor();
    await screenshot(page, "team-invitation");
    await page.getByRole("button", { name: "Join team" }).click();
    await page.getByText("You are now a member of Acme Research.").waitFor();
    await screenshot(page, "team-invitation-joined");

    const members = await (await demo.server.getTeam(teamId))!.listUsers();
    expect(members.map((member) => member.id).sort()).toEqual([aliceId, bobId].sort());
    expect(await (await demo.server.getTeam(teamId))!.listInvitations()).toEqual([]);

    await page.goto(`${demo.url}/protected`);
    await expect(page.getByTestId("user-teams").textContent()).resolves.toBe("Acme Research");
    expect(errors).toEqual([]);
    await context.close();
  });
});
