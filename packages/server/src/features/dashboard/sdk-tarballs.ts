import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BUILD_SDK_COMMAND, SDK_TARBALLS } from "@gatehouse/shared";
import type { Hono } from "hono";
import { SERVER_PACKAGE_ROOT } from "../../package-root.ts";

/**
 * Where scripts/build-sdk.mjs puts the packed @gatehouse/shared, js and react: beside dist/, which every server
 * build empties.
 */
export const SDK_TARBALLS_DIR = join(SERVER_PACKAGE_ROOT, "sdk-tarballs");

const SERVED: ReadonlySet<string> = new Set(Object.values(SDK_TARBALLS));

/**
 * `GET /sdk/gatehouse-<name>.tgz`: our own packages for apps to install from this server (they are on no registry;
 * @gatehouse/shared's install lines name these URLs). Only the three known names are ever read. Until they are
 * packed the answer is a 404 that says how to pack them.
 */
export function mountSdkTarballs(app: Hono, dir: string = SDK_TARBALLS_DIR): void {
  app.on(["GET", "HEAD"], "/sdk/:file", async (c, next) => {
    const file = c.req.param("file");
    if (!SERVED.has(file)) return next();
    let bytes: Buffer;
    try {
      bytes = await readFile(join(dir, file));
    } catch {
      return c.text(
        `${file} is not packed yet: run \`${BUILD_SDK_COMMAND}\` in the Gatehouse folder, then install again.`,
        404,
      );
    }
    return c.body(new Uint8Array(bytes), 200, {
      "content-type": "application/gzip",
      "cache-control": "no-cache",
      "x-content-type-options": "nosniff",
    });
  });
}
