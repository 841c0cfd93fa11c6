import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

export default defineConfig({
  // Workspace packages from their TypeScript sources (their `gatehouse-source` export), in Node and in happy-dom.
  resolve: { conditions: ["gatehouse-source", ...defaultClientConditions] },
  // Vitest hands these conditions to Node itself; `module` is left out because Node never uses it in production
  // and the AWS SDK's `module` builds are not loadable by Node (extensionless imports).
  ssr: {
    resolve: {
      conditions: [
        "gatehouse-source",
        ...defaultServerConditions.filter((condition) => condition !== "module"),
      ],
    },
  },
  test: {
    include: [
      "packages/*/src/**/*.test.{ts,tsx}",
      "apps/*/src/**/*.test.{ts,tsx}",
      // Browser tests: playwright-core driving Debian's chromium against a real server.
      "e2e/**/*.test.ts",
    ],
    // The server bundle and the dashboard, built once before any worker starts (e2e/build-before-tests.ts).
    globalSetup: ["./e2e/build-before-tests.ts"],
    // Each test file opens its own in-memory database; two workers match the machine's two cores.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // expect.poll waits for a condition (never a fixed time); a loaded CI machine can need more than the
    // default second for a browser page or the email worker to get there.
    expect: { poll: { timeout: 10_000 } },
  },
});
