// The prepack of @gatehouse/server: what its tarball holds beside package.json, bin/ and the files the server reads
// from src/ at run time (migrations, the email sandbox's worker), which package.json's `files` names. That is the
// server bundle, and inside it the dashboard build and the README: an installed package has no repository around it
// to find them in (package-root.ts).
//
//   node scripts/build-server-package.mjs        (npm pack in packages/server runs it)
//
// Like `npm start`, it builds only what is stale: the test suite packs the server while other test files run this
// same build, which a forced rebuild would delete under them.
import { execFileSync } from "node:child_process";
import { cpSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("..", import.meta.url));
const dist = join(root, "packages/server/dist");

execFileSync(process.execPath, [join(root, "scripts/build.mjs"), "server", "dashboard"], {
  stdio: "inherit",
});

// Copied beside and renamed into place, so an earlier copy is replaced whole, never merged with this one.
const copy = join(dist, "dashboard.partial");
rmSync(copy, { recursive: true, force: true });
cpSync(join(root, "apps/dashboard/dist"), copy, { recursive: true });
rmSync(join(dist, "dashboard"), { recursive: true, force: true });
renameSync(copy, join(dist, "dashboard"));
cpSync(join(root, "README.md"), join(dist, "README.md"));
console.log("Put the dashboard build and the README into packages/server/dist.");
