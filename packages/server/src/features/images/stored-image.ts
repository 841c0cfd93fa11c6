/**
 * The value an image field stores (PROTOCOL-EXTRA §6.7): a data URL is uploaded and replaced by its public URL,
 * an http(s) URL is kept as it is, null clears, undefined leaves the field alone; anything else is a plain 400.
 * Callers resolve images after their permission checks and before their transaction, so a refused caller or a
 * refused image stores nothing.
 */
import type { ServerEnv } from "../../env.ts";
import { isHttpUrl } from "../../fields/images.ts";
import { StatusError } from "../../http/status-error.ts";
import { type DecodedImage, decodeImageDataUrl, isImageDataUrl } from "./image-data.ts";
import { fileStorageFor, type ImageFolder, newImageKey } from "./storage.ts";

type Prepared<T> = { keep: T } | { upload: DecodedImage };

/** Checks a value without storing anything: what to keep, or the decoded image to upload. Throws the 400s. */
function prepare<T extends string | null | undefined>(value: T): Prepared<T> {
  if (value === undefined || value === null) return { keep: value };
  if (isImageDataUrl(value)) return { upload: decodeImageDataUrl(value) };
  if (isHttpUrl(value)) return { keep: value };
  throw new StatusError(400, "An image must be an http(s) URL or a data:image/<type>;base64,… URL.");
}

async function commit<T>(env: ServerEnv, folder: ImageFolder, prepared: Prepared<T>): Promise<T | string> {
  if ("keep" in prepared) return prepared.keep;
  const { bytes, format, contentType } = prepared.upload;
  return fileStorageFor(env).put(newImageKey(folder, format), bytes, contentType);
}

/** The value to store for one image field. */
export async function storedImageUrl<T extends string | null | undefined>(
  env: ServerEnv,
  folder: ImageFolder,
  value: T,
): Promise<T | string> {
  return commit(env, folder, prepare(value));
}

export const PROJECT_LOGO_FIELDS = [
  "logo_url",
  "logo_full_url",
  "logo_dark_mode_url",
  "logo_full_dark_mode_url",
] as const;
type LogoFields = { [K in (typeof PROJECT_LOGO_FIELDS)[number]]?: string | null | undefined };

/**
 * `fields` with each project logo as it is to be stored. Every logo is checked before any is uploaded, so one bad
 * logo of four leaves nothing behind.
 */
export async function withStoredProjectLogos<T extends LogoFields>(env: ServerEnv, fields: T): Promise<T> {
  const prepared = PROJECT_LOGO_FIELDS.map((name) => [name, prepare(fields[name])] as const);
  const result = { ...fields };
  for (const [name, value] of prepared) {
    const stored = await commit(env, "project-logos", value);
    if (stored !== undefined) result[name] = stored as T[typeof name];
  }
  return result;
}
