#!/usr/bin/env node
// How much a browser app pays for the SDK: bundles the same tiny program (sign in, read the user) against each
// entry of @gatehouse/js and against @stackframe/js with esbuild (minified, browser, ESM, split), gzips what the page
// loads up front and prints the sizes, then the modules that cost most in the client entry.
//   node bench/sdk-size.mjs
// The client entries' budget is a test (packages/js/src/bundle-size.test.ts); this prints figures only.
import { measureSignInBundle } from "../packages/js/bundle-size.mjs";

const candidates = [
  { name: "@gatehouse/js/client", pkg: "@gatehouse/js/client", className: "GatehouseClientApp" },
  { name: "@gatehouse/js", pkg: "@gatehouse/js", className: "GatehouseClientApp" },
  // A server or admin app has no business in a browser; these rows show what each entry carries.
  { name: "@gatehouse/js/server", pkg: "@gatehouse/js/server", className: "GatehouseServerApp" },
  { name: "@gatehouse/js/admin", pkg: "@gatehouse/js/admin", className: "GatehouseAdminApp" },
  { name: "@stackframe/js", pkg: "@stackframe/js", className: "StackClientApp" },
];

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const rows = [];
for (const candidate of candidates) {
  try {
    rows.push({ ...candidate, ...(await measureSignInBundle(candidate.pkg, candidate.className)) });
  } catch (error) {
    rows.push({ ...candidate, error: error.errors?.[0]?.text ?? error.message });
  }
}

console.log("SDK size for a browser program that signs in and reads the user (esbuild --minify, gzip -9)\n");
console.log(`${"entry".padEnd(22)}${"class".padEnd(20)}${"minified".padStart(12)}${"gzipped".padStart(12)}`);
for (const row of rows) {
  const label = `${row.name.padEnd(22)}${row.className.padEnd(20)}`;
  if (row.error) console.log(`${label}  failed to bundle: ${row.error}`);
  else console.log(`${label}${kb(row.raw).padStart(12)}${kb(row.gzip).padStart(12)}`);
}
const ours = rows.find((row) => row.name === "@gatehouse/js/client");
const theirs = rows.find((row) => row.name === "@stackframe/js");
if (ours?.gzip && theirs?.gzip) {
  console.log(
    `\n@gatehouse/js/client is ${((ours.gzip / theirs.gzip) * 100).toFixed(0)}% of @stackframe/js (gzipped).`,
  );
}
if (ours?.modules) {
  console.log("\nLargest modules of @gatehouse/js/client up front (minified bytes):");
  for (const { path, bytes } of ours.modules.slice(0, 12))
    console.log(`${String(bytes).padStart(8)}  ${path}`);
}
