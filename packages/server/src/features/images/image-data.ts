/**
 * Inline images (`data:image/<type>;base64,…`, PROTOCOL-EXTRA §6.7): decoded, held to the size limits and
 * recognised by their first bytes. The declared type is not trusted: the stored file's extension and the
 * Content-Type it is served with come from the bytes, and only raster formats are recognised, so an SVG (which can
 * carry scripts) or an HTML page labelled `image/png` is refused.
 */
import { StatusError } from "../../http/status-error.ts";

/** The reference's limits: the base64 text and the decoded bytes may each be at most this long. */
export const MAX_IMAGE_BASE64_LENGTH = 1_000_000;
export const MAX_IMAGE_BYTES = 1_000_000;

export const IMAGE_FORMATS = ["png", "jpeg", "gif", "webp", "avif"] as const;
export type ImageFormat = (typeof IMAGE_FORMATS)[number];

export const IMAGE_CONTENT_TYPES: Record<ImageFormat, string> = {
  png: "image/png",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  avif: "image/avif",
};

export type DecodedImage = { bytes: Buffer; format: ImageFormat; contentType: string };

const DATA_URL_PREFIX = /^data:image\/[a-zA-Z0-9]+;base64,/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

export function isImageDataUrl(value: string): boolean {
  return DATA_URL_PREFIX.test(value);
}

function ascii(bytes: Buffer, start: number, end: number): string {
  return bytes.subarray(start, end).toString("latin1");
}

/** ISO base media files (AVIF): an `ftyp` box first, naming `avif` or `avis` as its major or a compatible brand. */
function isAvif(bytes: Buffer): boolean {
  if (bytes.length < 16 || ascii(bytes, 4, 8) !== "ftyp") return false;
  const boxSize = Math.min(bytes.readUInt32BE(0), bytes.length);
  const brands = [ascii(bytes, 8, 12)];
  for (let offset = 16; offset + 4 <= boxSize; offset += 4) brands.push(ascii(bytes, offset, offset + 4));
  return brands.some((brand) => brand === "avif" || brand === "avis");
}

/** The format the bytes are in, from their magic numbers and the header that must follow them; null if none. */
export function sniffImageFormat(bytes: Buffer): ImageFormat | null {
  // PNG: the signature, then the IHDR chunk, which must come first.
  if (
    bytes.length >= 33 &&
    bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) &&
    ascii(bytes, 12, 16) === "IHDR"
  ) {
    return "png";
  }
  // JPEG: start of image, then any marker.
  if (bytes.length >= 4 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "jpeg";
  // GIF: the signature and its 7-byte logical screen descriptor.
  if (bytes.length >= 13 && (ascii(bytes, 0, 6) === "GIF87a" || ascii(bytes, 0, 6) === "GIF89a"))
    return "gif";
  // WebP: a RIFF container of type WEBP whose first chunk is one of the three WebP bitstreams.
  if (
    bytes.length >= 16 &&
    ascii(bytes, 0, 4) === "RIFF" &&
    ascii(bytes, 8, 12) === "WEBP" &&
    ["VP8 ", "VP8L", "VP8X"].includes(ascii(bytes, 12, 16))
  ) {
    return "webp";
  }
  if (isAvif(bytes)) return "avif";
  return null;
}

/**
 * Decodes an image data URL, or throws a plain 400 (StatusError) saying what is wrong: not a base64 image data
 * URL, over the limits, or bytes in no supported raster format.
 */
export function decodeImageDataUrl(value: string): DecodedImage {
  const prefix = DATA_URL_PREFIX.exec(value);
  if (!prefix)
    throw new StatusError(400, "An image must be a data URL of the form data:image/<type>;base64,<data>.");
  const base64 = value.slice(prefix[0].length);
  if (base64.length > MAX_IMAGE_BASE64_LENGTH) {
    throw new StatusError(
      400,
      `The image is too large: its base64 data may be at most ${MAX_IMAGE_BASE64_LENGTH} characters.`,
    );
  }
  // Buffer.from skips characters that are not base64, so the text is checked first.
  if (base64.length === 0 || !BASE64.test(base64)) {
    throw new StatusError(400, "The image's data is not valid base64.");
  }
  const bytes = Buffer.from(base64, "base64");
  if (bytes.length > MAX_IMAGE_BYTES) {
    throw new StatusError(400, `The image is too large: it may be at most ${MAX_IMAGE_BYTES} bytes.`);
  }
  const format = sniffImageFormat(bytes);
  if (!format) {
    throw new StatusError(400, `The image is not a ${IMAGE_FORMATS.join(", ")} image (SVG is not accepted).`);
  }
  return { bytes, format, contentType: IMAGE_CONTENT_TYPES[format] };
}
