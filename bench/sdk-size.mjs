#!/usr/bin/env node
// How much a browser app pays for the SDK: bundles the same tiny entry (sign in, read the user) against
// @gatehouse/js and @stackframe/js with esbuild (minified, browser, ESM), gzips each bundle and prints the sizes.
//   node bench/sdk-size.mjs
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = fileURLToPath(new URL("..", import.meta.url));

const entry = (pkg, className) => `
import { ${className} } from "${pkg}";
const app = new ${className}({
  projectId: "internal",
  baseUrl: "http://localhost:8102",
  publishableClientKey: "pck_example",
  tokenStore: "cookie",
});
export async function signInAndReadUser(email, password) {
  const result = await app.signInWithCredential({ email, password, noRedirect: true });
  if (result.status === "error") throw result.error;
  const user = await app.getUser();
  return user?.displayName ?? user?.primaryEmail ?? null;
}
`;

const candidates = [
  { name: "@gatehouse/js", pkg: "@gatehouse/js", className: "GatehouseClientApp" },
  { name: "@stackframe/js", pkg: "@stackframe/js", className: "StackClientApp" },
];

async function measure({ pkg, className }) {
  const result = await build({
    stdin: { contents: entry(pkg, className), resolveDir: root, sourcefile: "entry.mjs", loader: "js" },
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    // Our packages from their sources, so the figure needs no `npm run build:packages` first.
    conditions: ["gatehouse-source"],
    write: false,
    // As an app's bundler does: code loaded with import() (the admin app of owned projects) goes into its own
    // chunk, fetched only when used; the figure is what the page loads up front.
    splitting: true,
    outdir: "bench-out",
    metafile: true,
    logLevel: "silent",
    // Some SDKs read process.env to find their defaults; a browser bundler replaces it.
    define: { "process.env.NODE_ENV": '"production"' },
  });
  // The entry chunk and the chunks it imports statically, without those behind import().
  const outputs = result.metafile.outputs;
  const entryChunk = Object.keys(outputs).find((path) => outputs[path].entryPoint);
  const upFront = new Set();
  const visit = (path) => {
    if (upFront.has(path)) return;
    upFront.add(path);
    for (const imported of outputs[path].imports)
      if (imported.kind === "import-statement") visit(imported.path);
  };
  visit(entryChunk);
  const chunks = result.outputFiles.filter((file) => [...upFront].some((path) => file.path.endsWith(path)));
  const code = Buffer.concat(chunks.map((file) => file.contents));
  return { raw: code.byteLength, gzip: gzipSync(code, { level: 9 }).byteLength };
}

const kb = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const rows = [];
for (const candidate of candidates) {
  try {
    rows.push({ name: candidate.name, ...(await measure(candidate)) });
  } catch (error) {
    rows.push({ name: candidate.name, error: error.errors?.[0]?.text ?? error.message });
  }
}

console.log("SDK size for a browser entry that signs in and reads the user (esbuild --minify, gzip -9)\n");
console.log(`${"package".padEnd(18)}${"minified".padStart(12)}${"gzipped".padStart(12)}`);
for (const row of rows) {
  if (row.error) console.log(`${row.name.padEnd(18)}  failed to bundle: ${row.error}`);
  else console.log(`${row.name.padEnd(18)}${kb(row.raw).padStart(12)}${kb(row.gzip).padStart(12)}`);
}
const [ours, theirs] = rows;
if (ours?.gzip && theirs?.gzip) {
  console.log(
    `\n@gatehouse/js is ${((ours.gzip / theirs.gzip) * 100).toFixed(0)}% of @stackframe/js (gzipped).`,
  );
}
