import { afterEach, expect, it, vi } from "vitest";
import { getDevOAuthProvider } from "./dev-provider.ts";

afterEach(() => vi.restoreAllMocks());

// In a file of its own, so that oidc-provider is evaluated here for the first time in this worker process.
it("starts the development OAuth provider without oidc-provider's unsupported-runtime notice", async () => {
  const warn = vi.spyOn(console, "warn");
  const dev = await getDevOAuthProvider();
  expect(dev).toBeTruthy();
  expect(warn.mock.calls.flat().join("\n")).not.toContain("Unsupported runtime");
  // Everything else still reaches the console.
  console.warn("still printed");
  expect(warn).toHaveBeenCalledWith("still printed");
});
