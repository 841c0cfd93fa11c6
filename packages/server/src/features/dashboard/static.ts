import { readFile, stat } from "node:fs/promises";
import { extname, join, resolve, sep } from "node:path";
import type { Hono } from "hono";
import { HTML_SECURITY_HEADERS } from "../../http/html-security-headers.ts";
import { DASHBOARD_BUILD } from "../../package-root.ts";

/** Where `vite build` of apps/dashboard writes (scripts/build.mjs keeps it fresh before `npm start`). */
export const DEFAULT_DASHBOARD_DIST = DASHBOARD_BUILD;

const CONTENT_TYPES: Record<string, string> = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".map": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** Paths the dashboard must never answer, so that API and health errors stay the server's own. */
function isReserved(path: string): boolean {
  return path === "/api" || path.startsWith("/api/") || path === "/health" || path.startsWith("/health/");
}

async function readIfFile(path: string): Promise<Buffer | null> {
  try {
    const info = await stat(path);
    return info.isFile() ? await readFile(path) : null;
  } catch {
    return null;
  }
}

/**
 * Serves the built dashboard: its files, and index.html for any other GET path (the app routes in the browser,
 * including the /handler pages). Without a build, every page says how to make one.
 */
export function mountDashboard(app: Hono, distDir: string = DEFAULT_DASHBOARD_DIST): void {
  const root = resolve(distDir);
  app.on(["GET", "HEAD"], "*", async (c, next) => {
    const path = c.req.path;
    if (isReserved(path)) return next();

    let relative: string;
    try {
      relative = decodeURIComponent(path);
    } catch {
      return next();
    }
    const candidate = resolve(join(root, relative));
    // Never read outside the build folder, whatever the path says (`..`, encoded slashes).
    const inside = candidate === root || candidate.startsWith(root + sep);
    const file = inside && extname(candidate) !== "" ? await readIfFile(candidate) : null;
    if (file) {
      const immutable = relative.startsWith("/assets/");
      return c.body(new Uint8Array(file), 200, {
        ...(extname(candidate).toLowerCase() === ".html" ? HTML_SECURITY_HEADERS : {}),
        "content-type": CONTENT_TYPES[extname(candidate).toLowerCase()] ?? "application/octet-stream",
        "cache-control": immutable ? "public, max-age=31536000, immutable" : "no-cache",
        "x-content-type-options": "nosniff",
      });
    }
    // A missing asset is a real 404, not the app shell (a stale tab asking for an old bundle).
    if (relative.startsWith("/assets/")) return next();

    const index = await readIfFile(join(root, "index.html"));
    if (!index) {
      return c.text("The dashboard is not built. Run `npm start` (it builds it) or `npm run build`.", 503);
    }
    return c.body(new Uint8Array(index), 200, {
      ...HTML_SECURITY_HEADERS,
      "content-type": CONTENT_TYPES[".html"]!,
      "cache-control": "no-cache",
    });
  });
}
