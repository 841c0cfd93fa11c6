import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { mountSdkTarballs } from "./sdk-tarballs.ts";

/** `/sdk/<name>.tgz` over a folder of its own: what is packed is served, the rest says how to pack it. */
const dir = mkdtempSync(join(tmpdir(), "gatehouse-sdk-tarballs-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const app = new Hono();
mountSdkTarballs(app, dir);
app.get("*", (c) => c.text("fell through", 404));

describe("the SDK tarballs route", () => {
  it("serves a packed tarball, tells how to pack a missing one, and reads no other name", async () => {
    writeFileSync(join(dir, "gatehouse-js.tgz"), "packed bytes");
    const served = await app.request("/sdk/gatehouse-js.tgz");
    expect(served.status).toBe(200);
    expect(served.headers.get("content-type")).toBe("application/gzip");
    expect(await served.text()).toBe("packed bytes");

    const missing = await app.request("/sdk/gatehouse-react.tgz");
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("run `npm run build:sdk` in the Gatehouse folder");

    writeFileSync(join(dir, "other.tgz"), "not ours");
    for (const path of ["/sdk/other.tgz", "/sdk/..%2Fgatehouse-js.tgz"]) {
      expect(await (await app.request(path)).text(), path).toBe("fell through");
    }
  });
});
