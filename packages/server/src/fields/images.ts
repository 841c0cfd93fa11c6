/** Profile images and logos: an inline image data URL, or (for servers and owners) an http(s) URL. */
import { z } from "zod";
import { plainTextIssue } from "../http/schema-error.ts";
import { isStorableText } from "./text.ts";

/** Length limit of a profile image URL; the reference allows 1 MB, which fits a small base64 image. */
export const MAX_PROFILE_IMAGE_URL_LENGTH = 1_000_000;
// Any `image/<alnum>` type (PROTOCOL-EXTRA §6.7): the stored format is read from the bytes (features/images), which
// refuse SVG and anything else that is not a raster image; `svg+xml` does not even pass here.
const IMAGE_DATA_URL =
  /^data:image\/[a-zA-Z0-9]+;base64,(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function isImageDataUrl(value: string): boolean {
  return IMAGE_DATA_URL.test(value) && !value.endsWith(",");
}

export function isHttpUrl(value: string): boolean {
  if (/\s/.test(value) || !isStorableText(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === "https:" || url.protocol === "http:") && url.hostname !== "";
  } catch {
    return false;
  }
}

/** The reference's plain-text answer to a profile image it will not take (PROTOCOL-EXTRA §8.7). */
export const INVALID_PROFILE_IMAGE_URL = "Invalid profile image URL";

/** Clients may only upload an image inline, so that they cannot point other users' browsers at arbitrary hosts. */
export const clientProfileImageField = z
  .string()
  .max(MAX_PROFILE_IMAGE_URL_LENGTH)
  .refine(isImageDataUrl, plainTextIssue(INVALID_PROFILE_IMAGE_URL));

/** A user's or team's picture as servers set it: inline, or at an http(s) URL. */
export const serverProfileImageField = z
  .string()
  .max(MAX_PROFILE_IMAGE_URL_LENGTH)
  .refine((value) => isImageDataUrl(value) || isHttpUrl(value), plainTextIssue(INVALID_PROFILE_IMAGE_URL));

/** A project logo: the same values as a server's profile image, refused as any field of the request is. */
export const logoUrlField = z
  .string()
  .max(MAX_PROFILE_IMAGE_URL_LENGTH)
  .refine(
    (value) => isImageDataUrl(value) || isHttpUrl(value),
    "must be an http(s) URL or a base64 image data URL (data:image/png|jpeg|gif|webp|avif;base64,…)",
  );
