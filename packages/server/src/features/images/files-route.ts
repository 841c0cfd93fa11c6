/**
 * `GET /files/<folder>/<uuid>.<format>`: the uploaded images kept as local files (storage.ts), public like the
 * reference's S3 URLs. Outside /api, so that it carries none of the API's no-store and CORS-by-key headers.
 */
import type { Hono } from "hono";
import type { ServerEnv } from "../../env.ts";
import { textResponse } from "../../http/responses.ts";
import { IMMUTABLE_CACHE_CONTROL, LOCAL_FILES_PATH, readLocalFile } from "./storage.ts";

const FILE_HEADERS = {
  "cache-control": IMMUTABLE_CACHE_CONTROL,
  // The type comes from the stored bytes (image-data.ts); nosniff and the sandbox keep a browser from reading the
  // file as anything else even if opened directly.
  "x-content-type-options": "nosniff",
  "content-security-policy": "default-src 'none'; sandbox",
  // Apps on any origin show these images, and may draw them on a canvas.
  "cross-origin-resource-policy": "cross-origin",
  "access-control-allow-origin": "*",
};

export function mountStoredFiles(app: Hono, env: ServerEnv): void {
  app.on(["GET", "HEAD"], `${LOCAL_FILES_PATH}/*`, async (c) => {
    const key = c.req.path.slice(LOCAL_FILES_PATH.length + 1);
    const file = await readLocalFile(env, key);
    if (!file) return textResponse("Not found", 404);
    return c.body(new Uint8Array(file.bytes), 200, {
      ...FILE_HEADERS,
      "content-type": file.contentType,
      // Set here so that HEAD, whose body is dropped, says it too.
      "content-length": String(file.bytes.length),
    });
  });
}
