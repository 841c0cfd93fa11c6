/**
 * Images sent as data URLs (PROTOCOL-EXTRA §6.7) through every route that takes one, against a listening server:
 * the answer carries a URL, and fetching that URL over HTTP gives back the uploaded bytes.
 */

import { writeFile } from "node:fs/promises";
import { request as httpRequest } from "node:http";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { randomUuid } from "../../crypto/index.ts";
import { INVALID_PROFILE_IMAGE_URL } from "../../fields/images.ts";
import type { TestProject } from "../../testing/harness.ts";
import { imageDataUrl, makePng } from "../../testing/images.ts";
import { type ListeningServer, startListeningServer } from "../../testing/listening-server.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { IMMUTABLE_CACHE_CONTROL, localFilesRoot } from "./storage.ts";
import { filesUnder, freshDataDir, S3_BUCKET, startS3Server } from "./test-support.ts";

let server: ListeningServer;
let project: TestProject;
let dataDir: string;
let removeDataDir: () => Promise<void>;

beforeAll(async () => {
  ({ dataDir, remove: removeDataDir } = await freshDataDir());
  server = await startListeningServer({ dataDir });
  project = await server.createProject("Uploads");
  await project.configure({ "teams.allowClientTeamCreation": true });
});
afterAll(async () => {
  await server.close();
  await removeDataDir();
});

const stored = () => filesUnder(localFilesRoot({ dataDir }));
const asClient = (accessToken: string) => project.headers("client", { "x-stack-access-token": accessToken });
const call = (method: string, url: string, headers: Record<string, string>, body?: unknown) =>
  server.request(`/api/v1${url}`, { method, headers, ...(body === undefined ? {} : { body }) });

let colour = 0;
/** A PNG no other test uploads, so a fetched file can only be this one. */
function freshPng(): Buffer {
  colour += 1;
  return makePng(2 + (colour % 5), 3, [colour % 256, 40, 200]);
}

/** Fetches `url` over HTTP and checks it is `bytes`, stored in `folder` and served as a PNG for good. */
async function expectServed(url: unknown, bytes: Buffer, folder: string) {
  expect(url).toMatch(new RegExp(`^${server.baseUrl}/files/${folder}/[0-9a-f-]{36}\\.png$`));
  const response = await fetch(url as string);
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toBe("image/png");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("cache-control")).toBe(IMMUTABLE_CACHE_CONTROL);
  expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
}

/** Images that must be refused with a plain 400 (no known error): their bytes are no raster image. */
const NOT_IMAGES = [
  [
    "an SVG labelled image/png",
    imageDataUrl(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>')),
  ],
  ["an SVG labelled image/svg", imageDataUrl(Buffer.from("<svg/>"), "image/svg")],
  [
    "HTML labelled image/gif",
    imageDataUrl(Buffer.from("<html><script>alert(1)</script></html>"), "image/gif"),
  ],
  ["a PNG cut after its signature", imageDataUrl(makePng().subarray(0, 8))],
] as const;

/**
 * Refused by the field's rule: a project logo's schema (SCHEMA_ERROR), or for profile images the reference's plain
 * 400 "Invalid profile image URL" (PROTOCOL-EXTRA §8.7).
 */
const MALFORMED = [
  ["a javascript: URL", "javascript:alert(1)"],
  ["broken base64", "data:image/png;base64,abc"],
  ["an SVG data URL", imageDataUrl(Buffer.from("<svg/>"), "image/svg+xml")],
] as const;

/** Past the field's length limit: a SCHEMA_ERROR for every image field, before any rule of the field runs. */
const OVERSIZED = `data:image/png;base64,${makePng().toString("base64")}${"A".repeat(1_000_000)}`;

async function expectRefused(
  send: (value: string) => Promise<{ status: number; headers: Headers; text: string }>,
  malformedAnswer: "schema error" | "plain text" = "plain text",
) {
  const before = await stored();
  for (const [name, value] of NOT_IMAGES) {
    const response = await send(value);
    expect(response.status, name).toBe(400);
    expect(response.headers.get("x-stack-known-error"), name).toBeNull();
  }
  for (const [name, value] of MALFORMED) {
    const response = await send(value);
    expect(response.status, name).toBe(400);
    if (malformedAnswer === "schema error") {
      expect(response.headers.get("x-stack-known-error"), name).toBe("SCHEMA_ERROR");
    } else {
      expect(response.headers.get("x-stack-known-error"), name).toBeNull();
      expect(response.text, name).toBe(INVALID_PROFILE_IMAGE_URL);
    }
  }
  const oversized = await send(OVERSIZED);
  expect(oversized.status).toBe(400);
  expect(oversized.headers.get("x-stack-known-error")).toBe("SCHEMA_ERROR");
  expect(await stored()).toEqual(before);
}

describe("user profile images", () => {
  it("are uploaded by a client (PATCH /users/me) and served back", async () => {
    const { accessToken } = await createSignedInUser(server, project.id);
    const png = freshPng();
    const updated = await call("PATCH", "/users/me", asClient(accessToken), {
      profile_image_url: imageDataUrl(png),
    });
    expect(updated.status, updated.text).toBe(200);
    await expectServed(updated.body.profile_image_url, png, "user-profile-images");
    const read = await call("GET", "/users/me", asClient(accessToken));
    expect(read.body.profile_image_url).toBe(updated.body.profile_image_url);
  });

  it("are uploaded by a server on create and update; URLs are kept and null clears", async () => {
    const png = freshPng();
    const created = await call("POST", "/users", project.headers("server"), {
      profile_image_url: imageDataUrl(png),
    });
    expect(created.status, created.text).toBe(201);
    await expectServed(created.body.profile_image_url, png, "user-profile-images");
    const userPath = `/users/${created.body.id}`;
    const jpegLabel = freshPng();
    const replaced = await call("PATCH", userPath, project.headers("server"), {
      profile_image_url: imageDataUrl(jpegLabel, "image/jpeg"),
    });
    await expectServed(replaced.body.profile_image_url, jpegLabel, "user-profile-images");
    const linked = await call("PATCH", userPath, project.headers("server"), {
      profile_image_url: "https://images.example.com/ada.png?size=64",
    });
    expect(linked.body.profile_image_url).toBe("https://images.example.com/ada.png?size=64");
    const cleared = await call("PATCH", userPath, project.headers("admin"), { profile_image_url: null });
    expect(cleared.status).toBe(200);
    expect(cleared.body.profile_image_url).toBeNull();
  });

  it("that are not images are refused with a 400 and nothing is stored", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    await expectRefused((value) =>
      call("PATCH", "/users/me", asClient(accessToken), { profile_image_url: value }),
    );
    await expectRefused((value) =>
      call("PATCH", `/users/${user.id}`, project.headers("server"), { profile_image_url: value }),
    );
    await expectRefused((value) =>
      call("POST", "/users", project.headers("server"), {
        primary_email: `${randomUuid()}@example.com`,
        profile_image_url: value,
      }),
    );
    expect((await call("GET", "/users/me", asClient(accessToken))).body.profile_image_url).toBeNull();
    // No user came of the refused creations.
    const listed = await call("GET", "/users?limit=200", project.headers("server"));
    expect(
      listed.body.items.filter((u: { primary_email: string | null }) =>
        u.primary_email?.endsWith("@example.com"),
      ),
    ).toEqual([]);
  });
});

describe("team profile images", () => {
  it("are uploaded when a client creates a team and a server updates it", async () => {
    const { accessToken } = await createSignedInUser(server, project.id);
    const png = freshPng();
    const created = await call("POST", "/teams", asClient(accessToken), {
      display_name: "Pictured",
      creator_user_id: "me",
      profile_image_url: imageDataUrl(png),
    });
    expect(created.status, created.text).toBe(201);
    await expectServed(created.body.profile_image_url, png, "team-profile-images");
    const next = freshPng();
    const updated = await call("PATCH", `/teams/${created.body.id}`, project.headers("server"), {
      profile_image_url: imageDataUrl(next),
    });
    expect(updated.status, updated.text).toBe(200);
    await expectServed(updated.body.profile_image_url, next, "team-profile-images");
    expect(updated.body.profile_image_url).not.toBe(created.body.profile_image_url);
    // The first picture is still where its URL says.
    await expectServed(created.body.profile_image_url, png, "team-profile-images");
  });

  it("that are not images are refused with a 400 and nothing is stored", async () => {
    const team = await call("POST", "/teams", project.headers("server"), { display_name: "Plain" });
    await expectRefused((value) =>
      call("PATCH", `/teams/${team.body.id}`, project.headers("server"), { profile_image_url: value }),
    );
    await expectRefused((value) =>
      call("POST", "/teams", project.headers("server"), { display_name: "Never", profile_image_url: value }),
    );
    expect(
      (await call("GET", `/teams/${team.body.id}`, project.headers("server"))).body.profile_image_url,
    ).toBeNull();
  });
});

describe("team member profile images", () => {
  it("are uploaded by the member (client) and served back", async () => {
    const { user, accessToken } = await createSignedInUser(server, project.id);
    const team = await call("POST", "/teams", project.headers("server"), {
      display_name: "Crew",
      creator_user_id: user.id,
    });
    const png = freshPng();
    const path_ = `/team-member-profiles/${team.body.id}/me`;
    const updated = await call("PATCH", path_, asClient(accessToken), {
      profile_image_url: imageDataUrl(png),
    });
    expect(updated.status, updated.text).toBe(200);
    await expectServed(updated.body.profile_image_url, png, "team-member-profile-images");
    await expectRefused((value) => call("PATCH", path_, asClient(accessToken), { profile_image_url: value }));
    const read = await call(
      "GET",
      `/team-member-profiles/${team.body.id}/${user.id}`,
      project.headers("server"),
    );
    expect(read.body.profile_image_url).toBe(updated.body.profile_image_url);
  });
});

describe("project logos", () => {
  it("are uploaded by an admin (PATCH /internal/projects/current), each field on its own", async () => {
    const light = freshPng();
    const dark = freshPng();
    const updated = await call("PATCH", "/internal/projects/current", project.headers("admin"), {
      logo_url: imageDataUrl(light),
      logo_full_url: "https://cdn.example.com/full.png",
      logo_dark_mode_url: imageDataUrl(dark, "image/webp"),
      logo_full_dark_mode_url: null,
    });
    expect(updated.status, updated.text).toBe(200);
    await expectServed(updated.body.logo_url, light, "project-logos");
    await expectServed(updated.body.logo_dark_mode_url, dark, "project-logos");
    expect(updated.body).toMatchObject({
      logo_full_url: "https://cdn.example.com/full.png",
      logo_full_dark_mode_url: null,
    });
    const read = await call("GET", "/internal/projects/current", project.headers("admin"));
    expect(read.body.logo_url).toBe(updated.body.logo_url);
  });

  it("are refused whole when one of them is not an image, storing none", async () => {
    const before = (await call("GET", "/internal/projects/current", project.headers("admin"))).body;
    const files = await stored();
    const response = await call("PATCH", "/internal/projects/current", project.headers("admin"), {
      logo_url: imageDataUrl(freshPng()),
      logo_full_url: imageDataUrl(freshPng()),
      logo_full_dark_mode_url: NOT_IMAGES[0][1],
    });
    expect(response.status).toBe(400);
    expect(await stored()).toEqual(files);
    expect((await call("GET", "/internal/projects/current", project.headers("admin"))).body).toEqual(before);
    await expectRefused(
      (value) => call("PATCH", "/internal/projects/current", project.headers("admin"), { logo_url: value }),
      "schema error",
    );
  });

  it("are uploaded when a dashboard user creates a project (POST /internal/projects)", async () => {
    const owner = await createSignedInUser(server, "internal", {
      primaryEmail: `owner-${randomUuid()}@example.com`,
      primaryEmailVerified: true,
    });
    const headers = server.internal.headers("client", { "x-stack-access-token": owner.accessToken });
    const png = freshPng();
    const created = await call("POST", "/internal/projects", headers, {
      display_name: "Logo'd",
      owner_team_id: owner.user.selectedTeamId,
      logo_full_dark_mode_url: imageDataUrl(png),
    });
    expect(created.status, created.text).toBe(201);
    await expectServed(created.body.logo_full_dark_mode_url, png, "project-logos");
    await expectRefused(
      (value) =>
        call("POST", "/internal/projects", headers, {
          display_name: "Never",
          owner_team_id: owner.user.selectedTeamId,
          logo_url: value,
        }),
      "schema error",
    );
  });
});

/** A GET with the path exactly as written (fetch would resolve `..` before sending). */
function rawGet(pathname: string): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(server.baseUrl);
  return new Promise((resolve, reject) => {
    const req = httpRequest({ hostname, port, path: pathname, method: "GET" }, (res) => {
      let body = "";
      res.on("data", (chunk) => {
        body += chunk;
      });
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

describe("GET /files/…", () => {
  it("serves nothing but stored images, whatever the path says", async () => {
    await writeFile(path.join(dataDir, "secret"), "the data dir's secret");
    await writeFile(path.join(localFilesRoot({ dataDir }), "secret"), "the files folder's secret");
    const uuid = randomUuid();
    // Paths that stay under /files/ are answered there: 404 unless they name a stored image.
    for (const pathname of [
      "/files/secret",
      "/files/user-profile-images/..%2f..%2fsecret",
      "/files/user-profile-images/%2e%2e%2f%2e%2e%2fsecret",
      "/files/user-profile-images/..%5c..%5csecret",
      `/files/user-profile-images/${uuid}.png`,
      `/files/elsewhere/${uuid}.png`,
      `/files/user-profile-images/${uuid}.svg`,
      "/files/",
    ]) {
      const response = await rawGet(pathname);
      expect(response.status, pathname).toBe(404);
      expect(response.body, pathname).not.toContain("secret");
    }
    // `..` (also as %2e%2e) is resolved by the URL parser before routing, so these leave /files/.
    for (const pathname of ["/files/../secret", "/files/%2e%2e/secret"]) {
      expect((await rawGet(pathname)).body, pathname).not.toContain("secret");
    }
  });

  it("answers HEAD with the headers and no body", async () => {
    const { accessToken } = await createSignedInUser(server, project.id);
    const png = freshPng();
    const updated = await call("PATCH", "/users/me", asClient(accessToken), {
      profile_image_url: imageDataUrl(png),
    });
    const head = await fetch(updated.body.profile_image_url, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.headers.get("content-type")).toBe("image/png");
    expect(head.headers.get("content-length")).toBe(String(png.length));
    expect(await head.text()).toBe("");
  });
});

describe("with STACK_S3_* set", () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let s3Server: ListeningServer;
  let s3DataDir: Awaited<ReturnType<typeof freshDataDir>>;
  beforeAll(async () => {
    s3 = await startS3Server();
    s3DataDir = await freshDataDir();
    s3Server = await startListeningServer({ dataDir: s3DataDir.dataDir, s3: s3.settings });
  });
  afterAll(async () => {
    await s3Server.close();
    await s3.close();
    await s3DataDir.remove();
  });

  it("uploads to the bucket and stores the bucket's URL", async () => {
    const s3Project = await s3Server.createProject("S3 uploads");
    const { accessToken } = await createSignedInUser(s3Server, s3Project.id);
    const png = freshPng();
    const updated = await s3Server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: s3Project.headers("client", { "x-stack-access-token": accessToken }),
      body: { profile_image_url: imageDataUrl(png) },
    });
    expect(updated.status, updated.text).toBe(200);
    const url = updated.body.profile_image_url as string;
    expect(url).toMatch(
      new RegExp(`^${s3.settings.endpoint}/${S3_BUCKET}/user-profile-images/[0-9a-f-]{36}\\.png$`),
    );
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
    // Nothing went to the local files, and this server does not serve the key itself.
    expect(await filesUnder(localFilesRoot(s3DataDir))).toEqual([]);
    const key = url.slice(`${s3.settings.endpoint}/${S3_BUCKET}/`.length);
    expect((await fetch(`${s3Server.baseUrl}/files/${key}`)).status).toBe(404);
  });
});
