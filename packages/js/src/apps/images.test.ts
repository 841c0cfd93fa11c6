/**
 * Pictures through the SDK: it passes a data URL on as it is, and what the app reads back is the URL the server
 * stored the image under (PROTOCOL-EXTRA §6.7), which serves the same bytes.
 */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { imageDataUrl, makePng } from "../../../server/src/testing/images.ts";
import { appsFor, uniqueEmail } from "../testing/apps.ts";
import { type RunningGatehouse, startGatehouse } from "../testing/gatehouse-server.ts";

let gh: RunningGatehouse;
let apps: ReturnType<typeof appsFor>;
let dataDir: string;

beforeAll(async () => {
  dataDir = await mkdtemp(path.join(tmpdir(), "gatehouse-sdk-images-"));
  // The stored URLs are built from the base URL, so it must be the address the server listens on.
  gh = await startGatehouse({ dataDir }, { baseUrlIsListeningAddress: true });
  const project = await gh.createProject("SDK images");
  apps = appsFor(gh, project);
  await project.configure({ "teams.allowClientTeamCreation": true });
});
afterAll(async () => {
  await gh?.close();
  await rm(dataDir, { recursive: true, force: true });
});

async function expectServes(url: string | null | undefined, bytes: Buffer, folder: string) {
  expect(url).toMatch(new RegExp(`^${gh.baseUrl}/files/${folder}/[0-9a-f-]{36}\\.png$`));
  const response = await fetch(url!);
  expect(response.headers.get("content-type")).toBe("image/png");
  expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
}

describe("images set through the SDK", () => {
  it("a user's and their team's pictures read back as stored URLs", async () => {
    const app = apps.client();
    const signUp = await app.signUpWithCredential({
      email: uniqueEmail("picture"),
      password: "correct horse battery",
      verificationCallbackUrl: "http://localhost:3000/handler/email-verification",
    });
    if (signUp.status !== "ok") throw signUp.error;
    const user = await app.getUser({ or: "throw" });
    const picture = makePng(2, 2, [0, 200, 0]);
    await user.update({ profileImageUrl: imageDataUrl(picture) });
    await expectServes((await app.getUser({ or: "throw" })).profileImageUrl, picture, "user-profile-images");

    const badge = makePng(3, 1, [200, 0, 200]);
    const team = await user.createTeam({ displayName: "Pictured", profileImageUrl: imageDataUrl(badge) });
    await expectServes(team.profileImageUrl, badge, "team-profile-images");
  });

  it("a project's logo reads back as a stored URL in the admin app", async () => {
    const logo = makePng(4, 4, [10, 10, 250]);
    const admin = apps.admin();
    await (await admin.getProject()).update({ logoUrl: imageDataUrl(logo), logoDarkModeUrl: null });
    const project = await admin.getProject();
    await expectServes(project.logoUrl, logo, "project-logos");
    expect(project.logoDarkModeUrl).toBeNull();
  });
});
