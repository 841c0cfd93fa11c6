import { defaultClientConditions, defaultServerConditions } from "vite";
import { defineConfig } from "vitest/config";

/** Files that replace a module with `vi.mock`: the replacement must not outlive the file, so they run isolated. */
const moduleMockingTests = [
  "packages/server/src/features/teams/{teams,invitation-lists,invitations,members}.test.ts",
];

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
    projects: [
      {
        extends: true,
        test: {
          name: "node",
          include: [
            "packages/{server,js,shared,cli}/src/**/*.test.{ts,tsx}",
            // Browser tests: playwright-core driving Debian's chromium against a real server.
            "e2e/**/*.test.ts",
            // The repository's own checks (scripts/check-design-map.mjs).
            "scripts/*.test.mjs",
          ],
          exclude: [...moduleMockingTests, "**/node_modules/**"],
          // A worker keeps the modules it loaded from one test file to the next. Loading the server's module graph
          // afresh for every file was over a third of a file's time on CI; a test file's state lives in the server
          // it boots (its own database, caches and keys), not in module globals.
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          name: "isolated",
          include: [
            "packages/react/src/**/*.test.{ts,tsx}",
            "apps/*/src/**/*.test.{ts,tsx}",
            ...moduleMockingTests,
          ],
        },
      },
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
