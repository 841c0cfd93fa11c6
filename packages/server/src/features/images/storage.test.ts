import { writeFile } from "node:fs/promises";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readS3Settings } from "../../env-services.ts";
import { testEnv } from "../../testing/harness.ts";
import { makePng } from "../../testing/images.ts";
import {
  fileStorageFor,
  formatOfKey,
  localFileStorage,
  localFilesRoot,
  newImageKey,
  readLocalFile,
  s3FileStorage,
} from "./storage.ts";
import { filesUnder, freshDataDir, S3_BUCKET, startS3Server } from "./test-support.ts";

const UUID = "0b6f5d7e-3c2a-4e1f-9a8b-7c6d5e4f3a2b";

describe("image keys", () => {
  it("are <folder>/<random uuid>.<format>", () => {
    const first = newImageKey("project-logos", "webp");
    expect(first).toMatch(/^project-logos\/[0-9a-f-]{36}\.webp$/);
    expect(newImageKey("project-logos", "webp")).not.toBe(first);
    expect(formatOfKey(first)).toBe("webp");
  });

  it.each([
    `../user-profile-images/${UUID}.png`,
    `user-profile-images/../${UUID}.png`,
    `user-profile-images/../../secret`,
    `user-profile-images/${UUID}.svg`,
    `user-profile-images/${UUID.toUpperCase()}.png`,
    `user-profile-images/${UUID}.png/x`,
    `user-profile-images//${UUID}.png`,
    `other-folder/${UUID}.png`,
    `${UUID}.png`,
    `user-profile-images/${UUID}.png.partial`,
  ])("refuse %s", (key) => {
    expect(formatOfKey(key)).toBeNull();
  });
});

describe("local file storage", () => {
  let dataDir: string;
  let remove: () => Promise<void>;
  beforeAll(async () => ({ dataDir, remove } = await freshDataDir()));
  afterAll(() => remove());

  it("writes under <dataDir>/files and answers the URL under the base URL", async () => {
    const env = { dataDir, baseUrl: "https://auth.example.com" };
    const png = makePng(2, 2);
    const key = newImageKey("team-profile-images", "png");
    const url = await localFileStorage(env).put(key, png, "image/png");
    expect(url).toBe(`https://auth.example.com/files/${key}`);
    expect(await filesUnder(localFilesRoot(env))).toEqual([key]);
    expect(await readLocalFile(env, key)).toEqual({ bytes: png, contentType: "image/png" });
  });

  it("reads nothing for an unknown or malformed key, whatever lies in the data dir", async () => {
    await writeFile(path.join(dataDir, "secret"), "not for you");
    const env = { dataDir };
    expect(await readLocalFile(env, `user-profile-images/${UUID}.png`)).toBeNull();
    expect(await readLocalFile(env, "../secret")).toBeNull();
    expect(await readLocalFile(env, "user-profile-images/../../secret")).toBeNull();
  });

  it("refuses to write under a malformed key", async () => {
    await expect(
      localFileStorage({ dataDir, baseUrl: "http://x" }).put("../escape.png", makePng(), "image/png"),
    ).rejects.toThrow(/malformed key/);
  });

  it("is the default storage", () => {
    const env = testEnv({ dataDir, baseUrl: "https://auth.example.com" });
    expect(fileStorageFor(env)).toBe(fileStorageFor(env));
  });
});

describe("S3 storage, against s3rver", () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  beforeAll(async () => {
    s3 = await startS3Server();
  });
  afterAll(() => s3.close());

  it("puts the object and answers <endpoint>/<bucket>/<key>, where it can be read", async () => {
    const png = makePng(3, 3, [10, 20, 30]);
    const key = newImageKey("user-profile-images", "png");
    const url = await s3FileStorage(s3.settings).put(key, png, "image/png");
    expect(url).toBe(`${s3.settings.endpoint}/${S3_BUCKET}/${key}`);
    const response = await fetch(url);
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("image/png");
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(Buffer.from(await response.arrayBuffer())).toEqual(png);
  });

  it("answers URLs under the public endpoint when one is set", async () => {
    const key = newImageKey("project-logos", "png");
    const storage = s3FileStorage({ ...s3.settings, publicEndpoint: "https://cdn.example.com/images" });
    expect(await storage.put(key, makePng(), "image/png")).toBe(`https://cdn.example.com/images/${key}`);
    // The object is in the bucket all the same.
    expect((await fetch(`${s3.settings.endpoint}/${S3_BUCKET}/${key}`)).status).toBe(200);
  });

  it("fails the upload when the store refuses the credentials", async () => {
    // s3rver knows one key id (it does not check V4 signatures, so a wrong secret would pass).
    const storage = s3FileStorage({ ...s3.settings, accessKeyId: "UNKNOWN" });
    await expect(storage.put(newImageKey("project-logos", "png"), makePng(), "image/png")).rejects.toThrow(
      /Access Key Id you provided does not exist/,
    );
  });

  it("is the storage when the env names a bucket", () => {
    const env = testEnv({ s3: s3.settings });
    expect(fileStorageFor(env)).not.toBe(fileStorageFor(testEnv()));
  });
});

describe("STACK_S3_* settings", () => {
  const full = {
    STACK_S3_ENDPOINT: "https://s3.example.com/",
    STACK_S3_BUCKET: "images",
    STACK_S3_ACCESS_KEY_ID: "id",
    STACK_S3_SECRET_ACCESS_KEY: "secret",
  };

  it("are off when none is set", () => {
    expect(readS3Settings({})).toBeUndefined();
  });

  it("read the endpoint, bucket, region, credentials and public endpoint", () => {
    expect(readS3Settings(full)).toEqual({
      endpoint: "https://s3.example.com",
      bucket: "images",
      region: "us-east-1",
      accessKeyId: "id",
      secretAccessKey: "secret",
      publicEndpoint: undefined,
    });
    expect(
      readS3Settings({
        ...full,
        STACK_S3_REGION: "auto",
        STACK_S3_PUBLIC_ENDPOINT: "https://cdn.example.com//",
      }),
    ).toMatchObject({ region: "auto", publicEndpoint: "https://cdn.example.com" });
  });

  it.each([
    ["a bucket without an endpoint", { STACK_S3_BUCKET: "images" }, /STACK_S3_ENDPOINT and STACK_S3_BUCKET/],
    ["an endpoint without a bucket", { STACK_S3_ENDPOINT: "https://s3.example.com" }, /STACK_S3_BUCKET/],
    ["only a region", { STACK_S3_REGION: "eu-west-1" }, /STACK_S3_ENDPOINT/],
    ["a key id without its secret", { ...full, STACK_S3_SECRET_ACCESS_KEY: "" }, /set together/],
    ["an endpoint that is not http(s)", { ...full, STACK_S3_ENDPOINT: "ftp://s3.example.com" }, /http\(s\)/],
    ["a bucket with a slash", { ...full, STACK_S3_BUCKET: "a/b" }, /Invalid STACK_S3_BUCKET/],
  ])("refuse %s at start-up", (_name, env, message) => {
    expect(() => readS3Settings(env)).toThrow(message);
  });
});
