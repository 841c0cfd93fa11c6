// What a browser app pays up front for an SDK: esbuild bundles a tiny program that signs in and reads the user
// (minified, browser, ESM, split as an app's bundler splits it), and this returns the size of the chunks the page
// loads before it runs, raw and gzipped, with the modules that cost most. bench/sdk-size.mjs prints it for each
// entry; src/bundle-size.test.ts holds the client entry to its budget.
import { fileURLToPath } from "node:url";
import { gzipSync } from "node:zlib";
import { build } from "esbuild";

const root = fileURLToPath(new URL("../..", import.meta.url));

/** The program: a client-side app, made as a browser app makes it, that signs in and shows who signed in. */
export function signInProgram(pkg, className) {
  return `
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
}

/** Bundles `signInProgram(pkg, className)`; throws if it cannot be bundled. */
export async function measureSignInBundle(pkg, className) {
  const result = await build({
    stdin: {
      contents: signInProgram(pkg, className),
      resolveDir: root,
      sourcefile: "entry.mjs",
      loader: "js",
    },
    bundle: true,
    minify: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    // Our packages from their sources, so the figure needs no `npm run build:packages` first.
    conditions: ["gatehouse-source"],
    write: false,
    // As an app's bundler does: code loaded with import() (OAuth, passkeys, owned projects' admin apps) goes into
    // chunks of its own, fetched only when used; the figure is what the page loads up front.
    splitting: true,
    outdir: "bundle-size-out",
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
  const modules = new Map();
  for (const path of upFront) {
    for (const [input, { bytesInOutput }] of Object.entries(outputs[path].inputs)) {
      if (bytesInOutput > 0) modules.set(input, (modules.get(input) ?? 0) + bytesInOutput);
    }
  }
  return {
    raw: code.byteLength,
    gzip: gzipSync(code, { level: 9 }).byteLength,
    /** Minified bytes per source module up front, largest first. */
    modules: [...modules].sort((a, b) => b[1] - a[1]).map(([path, bytes]) => ({ path, bytes })),
  };
}
