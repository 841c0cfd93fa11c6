/** Helpers of the image tests: a real S3-compatible server (s3rver) and a data dir of their own. */
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import S3rver from "s3rver";
import type { S3Settings } from "../../env-services.ts";

export const S3_BUCKET = "gatehouse-images";

/** s3rver on a random loopback port with one bucket; it checks request signatures against these credentials. */
export async function startS3Server(): Promise<{ settings: S3Settings; close: () => Promise<void> }> {
  const directory = await mkdtemp(path.join(tmpdir(), "gatehouse-s3rver-"));
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: S3_BUCKET, configs: [] }],
  });
  const { port } = await server.run();
  return {
    settings: {
      endpoint: `http://127.0.0.1:${port}`,
      bucket: S3_BUCKET,
      region: "us-east-1",
      accessKeyId: "S3RVER",
      secretAccessKey: "S3RVER",
      publicEndpoint: undefined,
    },
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}

export async function freshDataDir(): Promise<{ dataDir: string; remove: () => Promise<void> }> {
  const dataDir = await mkdtemp(path.join(tmpdir(), "gatehouse-images-"));
  return { dataDir, remove: () => rm(dataDir, { recursive: true, force: true }) };
}

/** Every file under `dir`, as paths relative to it ([] when it does not exist). */
export async function filesUnder(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(dir, path.join(entry.parentPath, entry.name)))
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw error;
  }
}
