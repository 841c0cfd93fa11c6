import { describe, expect, it } from "vitest";
import { StatusError } from "../../http/status-error.ts";
import { imageDataUrl, makePng } from "../../testing/images.ts";
import {
  decodeImageDataUrl,
  type ImageFormat,
  MAX_IMAGE_BASE64_LENGTH,
  sniffImageFormat,
} from "./image-data.ts";

const bytes = (...parts: (string | number[])[]) =>
  Buffer.concat(
    parts.map((part) => (typeof part === "string" ? Buffer.from(part, "latin1") : Buffer.from(part))),
  );

const JPEG = bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], "JFIF\0", [1, 1, 0, 0, 1, 0, 1, 0, 0, 0xff, 0xd9]);
const GIF = bytes("GIF89a", [1, 0, 1, 0, 0x80, 0, 0], [0, 0, 0, 255, 255, 255], ";");
const WEBP = bytes(
  "RIFF",
  [26, 0, 0, 0],
  "WEBPVP8L",
  [13, 0, 0, 0, 0x2f, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0],
);
const ftyp = (major: string, ...compatible: string[]) => {
  const size = 16 + 4 * compatible.length;
  return bytes([0, 0, 0, size], "ftyp", major, [0, 0, 0, 0], ...compatible, [0, 0, 0, 8], "mdat");
};
const SVG = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');

/** The 400 that `decodeImageDataUrl` throws for `value`, or a failure if it accepts it. */
function refusal(value: string): StatusError {
  try {
    decodeImageDataUrl(value);
  } catch (error) {
    expect(error).toBeInstanceOf(StatusError);
    expect((error as StatusError).status).toBe(400);
    return error as StatusError;
  }
  throw new Error(`accepted ${value.slice(0, 60)}`);
}

describe("sniffImageFormat", () => {
  it.each<[string, Buffer, ImageFormat]>([
    ["a PNG", makePng(3, 2), "png"],
    ["a JPEG", JPEG, "jpeg"],
    ["a GIF", GIF, "gif"],
    ["a WebP", WEBP, "webp"],
    ["an AVIF", ftyp("avif", "mif1", "miaf"), "avif"],
    ["an AVIF named by a compatible brand", ftyp("mif1", "miaf", "avif"), "avif"],
    ["an AVIF sequence", ftyp("avis", "msf1"), "avif"],
  ])("recognises %s", (_name, data, format) => {
    expect(sniffImageFormat(data)).toBe(format);
  });

  it.each<[string, Buffer]>([
    ["an SVG", SVG],
    ["HTML", Buffer.from("<!doctype html><script>alert(1)</script>")],
    ["a PNG signature alone", makePng().subarray(0, 8)],
    [
      "a PNG whose first chunk is not IHDR",
      Buffer.concat([makePng().subarray(0, 12), Buffer.from("IDAT"), Buffer.alloc(30)]),
    ],
    ["a GIF header cut short", Buffer.from("GIF89a")],
    ["a RIFF file that is not WebP", bytes("RIFF", [4, 0, 0, 0], "WAVEfmt ", [0, 0, 0, 0])],
    ["an MP4 (ftyp without an AVIF brand)", ftyp("isom", "mp41")],
    ["nothing", Buffer.alloc(0)],
  ])("refuses %s", (_name, data) => {
    expect(sniffImageFormat(data)).toBeNull();
  });
});

describe("decodeImageDataUrl", () => {
  it("decodes a PNG to its bytes, format and type", () => {
    const png = makePng(4, 4, [0, 128, 255]);
    expect(decodeImageDataUrl(imageDataUrl(png))).toEqual({
      bytes: png,
      format: "png",
      contentType: "image/png",
    });
  });

  it("goes by the bytes, not by the declared type", () => {
    expect(decodeImageDataUrl(imageDataUrl(makePng(), "image/jpeg")).format).toBe("png");
    expect(decodeImageDataUrl(imageDataUrl(GIF, "image/anything")).contentType).toBe("image/gif");
  });

  it.each([
    ["no data", "data:image/png;base64,"],
    ["a length that is not a multiple of 4", "data:image/png;base64,abc"],
    ["padding in the middle", "data:image/png;base64,ab=cabcd"],
    [
      "spaces",
      `data:image/png;base64,${makePng()
        .toString("base64")
        .replace(/(.{8})/, "$1 ")}`,
    ],
    ["URL-safe characters", `data:image/png;base64,${makePng(5, 5, [0, 0, 0], true).toString("base64url")}A`],
  ])("refuses bad base64: %s", (_name, value) => {
    expect(refusal(value).message).toMatch(/base64/);
  });

  it.each([
    ["a text data URL", imageDataUrl(Buffer.from("hello"), "text/plain")],
    ["an SVG data URL", imageDataUrl(SVG, "image/svg+xml")],
    ["an http URL", "https://example.com/a.png"],
    ["a data URL that is not base64", `data:image/png,${encodeURIComponent("<svg/>")}`],
  ])("refuses %s as not an image data URL", (_name, value) => {
    expect(refusal(value).message).toMatch(/data URL/);
  });

  it.each([
    ["an SVG labelled image/svg", imageDataUrl(SVG, "image/svg")],
    ["an SVG labelled image/png", imageDataUrl(SVG)],
    ["HTML labelled image/png", imageDataUrl(Buffer.from("<html><script>alert(1)</script></html>"))],
    ["random bytes", imageDataUrl(Buffer.from([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]))],
  ])("refuses %s as not a supported image", (_name, value) => {
    expect(refusal(value).message).toMatch(/SVG is not accepted/);
  });

  it("takes base64 data of exactly the limit and refuses one group more", () => {
    // 750,000 bytes are exactly 1,000,000 base64 characters: a noisy PNG padded at its end.
    const png = makePng(100, 100, [0, 0, 0], true);
    const atLimit = Buffer.concat([png, Buffer.alloc((MAX_IMAGE_BASE64_LENGTH / 4) * 3 - png.length)]);
    const value = imageDataUrl(atLimit);
    expect(value.length - "data:image/png;base64,".length).toBe(MAX_IMAGE_BASE64_LENGTH);
    expect(decodeImageDataUrl(value).bytes.length).toBe(750_000);
    const over = imageDataUrl(Buffer.concat([atLimit, Buffer.alloc(3)]));
    expect(refusal(over).message).toMatch(/too large/);
  });
});
