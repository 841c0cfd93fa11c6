/**
 * Compiles an email's TSX (one template and one theme) with esbuild into one script for the sandbox: the owner's
 * sources, the `@stackframe/emails` module, React, React Email and arktype, plus the driver (sandbox-driver.ts)
 * that renders them. Owner code may import only the modules the protocol lists; anything else (`fs`, relative
 * paths, `node:*`) fails the compile with a message naming the import and its line.
 *
 * Each build bundles only what the sources import (React Email's `<Tailwind>` alone is most of the bundle), and the
 * last few builds are cached by their sources, so re-rendering the same template is cheap.
 */
import { createHash } from "node:crypto";
import type { BuildFailure, Message, Plugin } from "esbuild";
import { SERVER_PACKAGE_ROOT } from "../package-root.ts";
import { EMAILS_MODULE_SOURCE } from "./emails-module.ts";
import { ARK_CONFIG_SOURCE, SANDBOX_DRIVER_SOURCE } from "./sandbox-driver.ts";

export class EmailCompileError extends Error {
  override readonly name = "EmailCompileError";
}

/** Bare imports owner code may use. `@react-email/*` covers the single-component packages the umbrella re-exports. */
const ALLOWED_IMPORTS = [
  /^react$/,
  /^react\/jsx-runtime$/,
  /^react\/jsx-dev-runtime$/,
  /^@react-email\/[\w-]+$/,
  /^arktype$/,
];
const EMAILS_MODULE_NAMES = new Set(["@stackframe/emails", "@gatehouse/emails"]);
const NAMESPACE = "gatehouse-email";

type Sources = { template: string; theme: string };

/** The names owner files get in messages: what an owner calls them. */
const FILE_NAMES = { template: "template.tsx", theme: "theme.tsx" } as const;

function emailPlugin(sources: Sources): Plugin {
  return {
    name: "gatehouse-email",
    setup(builder) {
      builder.onResolve({ filter: /.*/ }, (args) => {
        if (args.kind === "entry-point") return { path: "driver.tsx", namespace: NAMESPACE };
        const fromOwnerCode = args.namespace === NAMESPACE;
        if (!fromOwnerCode) return undefined; // imports inside node_modules resolve as usual
        if (args.path === "gatehouse:template") return { path: FILE_NAMES.template, namespace: NAMESPACE };
        if (args.path === "gatehouse:theme") return { path: FILE_NAMES.theme, namespace: NAMESPACE };
        if (args.path === "gatehouse:ark-config") return { path: "ark-config.ts", namespace: NAMESPACE };
        if (EMAILS_MODULE_NAMES.has(args.path)) return { path: "emails.tsx", namespace: NAMESPACE };
        const fromServerCode = args.importer === "driver.tsx" || args.importer === "ark-config.ts";
        if (fromServerCode || ALLOWED_IMPORTS.some((pattern) => pattern.test(args.path))) {
          return undefined;
        }
        return {
          errors: [
            {
              text: `Cannot import "${args.path}": email templates and themes may import only react, @react-email/components, arktype and @stackframe/emails.`,
            },
          ],
        };
      });
      builder.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => {
        const contents =
          args.path === FILE_NAMES.template
            ? sources.template
            : args.path === FILE_NAMES.theme
              ? sources.theme
              : args.path === "emails.tsx"
                ? EMAILS_MODULE_SOURCE
                : args.path === "ark-config.ts"
                  ? ARK_CONFIG_SOURCE
                  : SANDBOX_DRIVER_SOURCE;
        // Bare imports resolve from the server package, where react, @react-email and arktype are installed.
        return { contents, loader: "tsx", resolveDir: SERVER_PACKAGE_ROOT };
      });
    },
  };
}

function formatMessage(message: Message): string {
  const location = message.location;
  if (!location) return message.text;
  const file = location.file.replace(`${NAMESPACE}:`, "");
  const where = `${file}:${location.line}:${location.column + 1}`;
  return `${where}: ${message.text}\n  ${location.line} | ${location.lineText}`;
}

const CACHE_SIZE = 32;
const cache = new Map<string, Promise<CompiledEmail>>();

/** A compiled email: the script, and its source map (to point runtime errors at the owner's lines). */
export type CompiledEmail = { code: string; sourceMap: string };

/** One script that defines `globalThis.__gatehouseRender` (see sandbox-driver.ts) for these sources. */
export function compileEmail(sources: Sources): Promise<CompiledEmail> {
  const key = createHash("sha256").update(sources.template).update("\0").update(sources.theme).digest("hex");
  const cached = cache.get(key);
  if (cached) {
    // Map order is insertion order: re-inserting keeps recently used builds away from eviction.
    cache.delete(key);
    cache.set(key, cached);
    return cached;
  }
  const compiled = runBuild(sources);
  cache.set(key, compiled);
  // Failures are not worth keeping, and must not stay cached if a build failed for a passing reason.
  compiled.catch(() => cache.delete(key));
  while (cache.size > CACHE_SIZE) cache.delete(cache.keys().next().value as string);
  return compiled;
}

async function runBuild(sources: Sources): Promise<CompiledEmail> {
  // esbuild's API is loaded with the first compile rather than at start (~0.03 s, ~5 MiB).
  const { build } = await import("esbuild");
  try {
    const result = await build({
      entryPoints: ["driver"],
      bundle: true,
      write: false,
      format: "iife",
      platform: "browser",
      target: "es2022",
      jsx: "automatic",
      minifyWhitespace: true,
      legalComments: "none",
      logLevel: "silent",
      define: { "process.env.NODE_ENV": '"production"' },
      plugins: [emailPlugin(sources)],
      // `outfile` only names the outputs: nothing is written. The map stays apart from the script.
      outfile: "email.js",
      sourcemap: "external",
      sourcesContent: false,
    });
    const code = result.outputFiles?.find((file) => file.path.endsWith("email.js"));
    const map = result.outputFiles?.find((file) => file.path.endsWith("email.js.map"));
    if (!code || !map) throw new EmailCompileError("The compiler produced no output.");
    return { code: code.text, sourceMap: map.text };
  } catch (error) {
    const failure = error as Partial<BuildFailure>;
    if (Array.isArray(failure.errors) && failure.errors.length > 0) {
      throw new EmailCompileError(failure.errors.slice(0, 5).map(formatMessage).join("\n"));
    }
    throw error;
  }
}
