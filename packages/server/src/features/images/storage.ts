/**
 * Where uploaded images are kept (DECISIONS.md, "Uploaded images": local files in the data dir, or any S3-compatible store). Either way a
 * stored file is named `<folder>/<random uuid>.<format>` and never changes, and `put` answers the absolute URL
 * that the API stores and returns in place of the data URL.
 */
import { randomUUID } from "node:crypto";
import { mkdir, readFile, rename, rm, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import path from "node:path";
import type { ServerEnv } from "../../env.ts";
import type { S3Settings } from "../../env-services.ts";
import { IMAGE_CONTENT_TYPES, IMAGE_FORMATS, type ImageFormat } from "./image-data.ts";

export const IMAGE_FOLDERS = [
  "user-profile-images",
  "team-profile-images",
  "team-member-profile-images",
  "project-logos",
] as const;
export type ImageFolder = (typeof IMAGE_FOLDERS)[number];

/** The path under which this server serves local files (files-route.ts). */
export const LOCAL_FILES_PATH = "/files";

/** Stored names are immutable, so browsers and proxies may keep them for a year. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";

export type FileStorage = {
  /** Stores `bytes` under `key` (`<folder>/<uuid>.<format>`) and answers its public URL. */
  put: (key: string, bytes: Buffer, contentType: string) => Promise<string>;
};

const KEY = new RegExp(
  `^(${IMAGE_FOLDERS.join("|")})/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\\.(${IMAGE_FORMATS.join("|")})$`,
);

/**
 * The format of a well-formed key, else null. Only such keys are ever written or read, so a request path can name
 * nothing outside the files folder (no `..`, no separators beyond the one after the folder).
 */
export function formatOfKey(key: string): ImageFormat | null {
  const match = KEY.exec(key);
  return match ? (match[2] as ImageFormat) : null;
}

export function newImageKey(folder: ImageFolder, format: ImageFormat): string {
  return `${folder}/${randomUUID()}.${format}`;
}

export function localFilesRoot(env: Pick<ServerEnv, "dataDir">): string {
  return path.join(env.dataDir, "files");
}

/** Files under `<dataDir>/files`, served by this server at `<baseUrl>/files/<key>`. */
export function localFileStorage(env: Pick<ServerEnv, "dataDir" | "baseUrl">): FileStorage {
  const root = localFilesRoot(env);
  return {
    put: async (key, bytes) => {
      if (!formatOfKey(key)) throw new Error(`Refusing to store a file under the malformed key ${key}`);
      const target = path.join(root, key);
      await mkdir(path.dirname(target), { recursive: true });
      // Written aside and renamed, so that a reader never sees half a file.
      const partial = `${target}.${randomUUID()}.partial`;
      try {
        await writeFile(partial, bytes, { flag: "wx", mode: 0o644 });
        await rename(partial, target);
      } catch (error) {
        await rm(partial, { force: true });
        throw error;
      }
      return `${env.baseUrl}${LOCAL_FILES_PATH}/${key}`;
    },
  };
}

/** A stored local file's bytes and type, or null when the key is malformed or nothing is stored under it. */
export async function readLocalFile(
  env: Pick<ServerEnv, "dataDir">,
  key: string,
): Promise<{ bytes: Buffer; contentType: string } | null> {
  const format = formatOfKey(key);
  if (!format) return null;
  try {
    return {
      bytes: await readFile(path.join(localFilesRoot(env), key)),
      contentType: IMAGE_CONTENT_TYPES[format],
    };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
}

/** The URL an object is read from: `STACK_S3_PUBLIC_ENDPOINT/<key>`, else `STACK_S3_ENDPOINT/STACK_S3_BUCKET/<key>`. */
export function s3PublicUrl(settings: S3Settings, key: string): string {
  return `${settings.publicEndpoint ?? `${settings.endpoint}/${settings.bucket}`}/${key}`;
}

/**
 * An S3-compatible bucket. The AWS SDK is loaded on the first upload, so servers on local files never load it.
 * Path-style addressing (`<endpoint>/<bucket>/<key>`) is what MinIO, R2, Ceph and AWS all accept.
 */
export function s3FileStorage(settings: S3Settings): FileStorage {
  let client:
    | Promise<{ send: (key: string, bytes: Buffer, contentType: string) => Promise<void> }>
    | undefined;
  const connect = async () => {
    // Through require: the SDK's ESM build (its `module` field, which Vite-based runners pick) has imports Node
    // cannot resolve; its CommonJS build is what Node itself loads anyway.
    const { S3Client, PutObjectCommand } = createRequire(import.meta.url)(
      "@aws-sdk/client-s3",
    ) as typeof import("@aws-sdk/client-s3");
    const s3 = new S3Client({
      endpoint: settings.endpoint,
      region: settings.region,
      forcePathStyle: true,
      // Checksums only where S3 requires them: several S3-compatible stores refuse the newer default headers.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
    });
    return {
      send: async (key: string, bytes: Buffer, contentType: string) => {
        await s3.send(
          new PutObjectCommand({
            Bucket: settings.bucket,
            Key: key,
            Body: bytes,
            ContentType: contentType,
            CacheControl: IMMUTABLE_CACHE_CONTROL,
          }),
        );
      },
    };
  };
  return {
    put: async (key, bytes, contentType) => {
      client ??= connect().catch((error: unknown) => {
        client = undefined;
        throw error;
      });
      await (await client).send(key, bytes, contentType);
      return s3PublicUrl(settings, key);
    },
  };
}

const storages = new WeakMap<ServerEnv, FileStorage>();

/** The storage `env` names: S3 when `STACK_S3_*` is set, else local files (one instance per env, so one client). */
export function fileStorageFor(env: ServerEnv): FileStorage {
  let storage = storages.get(env);
  if (!storage) {
    storage = env.s3 ? s3FileStorage(env.s3) : localFileStorage(env);
    storages.set(env, storage);
  }
  return storage;
}
