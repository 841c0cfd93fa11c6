import { describe, expect, it } from "vitest";
import { measureSignInBundle } from "../bundle-size.mjs";

/** Issue #38: what a browser page loads up front to sign in and read the user, gzipped. */
const CLIENT_BUDGET_BYTES = 20 * 1024;

describe("the browser SDK's size", () => {
  // A size, not a time: esbuild bundles the program the way bench/sdk-size.mjs does, and the bytes are counted.
  it.each(["@gatehouse/js/client", "@gatehouse/js"])(
    "a program that signs in and reads the user with %s stays within 20 KiB gzipped",
    async (entry) => {
      const { gzip, modules } = await measureSignInBundle(entry, "GatehouseClientApp");
      const largest = modules
        .slice(0, 8)
        .map(({ path, bytes }) => `${bytes} ${path}`)
        .join("\n");
      expect(gzip, `${gzip} bytes gzipped; largest modules up front:\n${largest}`).toBeLessThanOrEqual(
        CLIENT_BUDGET_BYTES,
      );
      // Nothing of the server or admin apps is loaded up front (they are neither imported nor reached).
      expect(modules.map(({ path }) => path)).not.toContainEqual(
        expect.stringMatching(/apps\/(server-app|admin-app|admin-[a-z-]+)\.ts$/),
      );
    },
  );
});
