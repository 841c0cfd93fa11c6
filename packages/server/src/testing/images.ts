/** Real images for the upload tests (PROTOCOL-EXTRA §6.7), made here rather than read from fixture files. */
import { crc32, deflateSync } from "node:zlib";

function pngChunk(type: string, data: Buffer): Buffer {
  const typeAndData = Buffer.concat([Buffer.from(type, "latin1"), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typeAndData));
  return Buffer.concat([length, typeAndData, crc]);
}

/** A valid PNG of one colour; `noise` fills it with pseudo-random pixels instead, so it does not compress. */
export function makePng(
  width = 1,
  height = 1,
  rgb: [number, number, number] = [255, 0, 0],
  noise = false,
): Buffer {
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB, no interlace
  const rows = Buffer.alloc(height * (1 + width * 3));
  let seed = 12345;
  for (let y = 0; y < height; y++) {
    const start = y * (1 + width * 3);
    for (let x = 0; x < width; x++) {
      for (let c = 0; c < 3; c++) {
        seed = (seed * 1103515245 + 12345) >>> 0;
        rows[start + 1 + x * 3 + c] = noise ? seed >>> 24 : rgb[c]!;
      }
    }
  }
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", header),
    pngChunk("IDAT", deflateSync(rows, { level: noise ? 0 : 9 })),
    pngChunk("IEND", Buffer.alloc(0)),
  ]);
}

export function imageDataUrl(bytes: Buffer, type = "image/png"): string {
  return `data:${type};base64,${bytes.toString("base64")}`;
}

/** A 1×1 red PNG as a data URL, the smallest real picture a client can upload. */
export const TINY_PNG_DATA_URL = imageDataUrl(makePng());
