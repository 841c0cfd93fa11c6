import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { build } from "esbuild";
import { REPOSITORY_ROOT } from "../package-root.ts";
import type { TestProject } from "./harness.ts";
import type { ListeningServer } from "./listening-server.ts";

type PageConfig = Record<string, unknown>;

export type SdkPage = {
  /** The page's origin; every path answers with the same shell, so the script can look at `location`. */
  url: string;
  close(): Promise<void>;
};

/** The options of a client app of `project` on `server`, the usual `config` of a page. */
export function clientAppConfig(server: Pick<ListeningServer, "baseUrl">, project: TestProject): PageConfig {
  return {
    projectId: project.id,
    baseUrl: server.baseUrl,
    publishableClientKey: project.keys.publishableClientKey,
  };
}

/**
 * A test page for Chromium that runs `entry`, a module script importing the SDK (`@gatehouse/js` from its sources,
 * as the workspace reads it) or any package of the workspace, bundled by esbuild and served from a local server of
 * its own. The script finds its settings as JSON in `<script id="config">`: `config`, or what `config` makes of the
 * request's URL. `host: "localhost"` where the page must not be on an IP address (a WebAuthn relying party).
 */
export async function serveSdkPage(options: {
  entry: string;
  config: PageConfig | ((url: URL) => PageConfig);
  host?: "127.0.0.1" | "localhost";
}): Promise<SdkPage> {
  const bundle = await build({
    stdin: { contents: options.entry, resolveDir: REPOSITORY_ROOT, loader: "js" },
    bundle: true,
    format: "esm",
    platform: "browser",
    conditions: ["gatehouse-source"],
    write: false,
    logLevel: "silent",
  });
  const script = bundle.outputFiles[0]!.text;
  const { config: given } = options;
  const configOf = (url: URL) => (typeof given === "function" ? given(url) : given);
  const server = createServer((request, response) => {
    const url = new URL(request.url ?? "/", "http://localhost");
    if (url.pathname === "/sdk.js") {
      response.writeHead(200, { "content-type": "text/javascript" });
      response.end(script);
      return;
    }
    // `<` escaped, so that no value can close the script element.
    const config = JSON.stringify(configOf(url)).replaceAll("<", "\\u003c");
    response.writeHead(200, { "content-type": "text/html" });
    response.end(
      `<!doctype html><script id="config" type="application/json">${config}</script>` +
        `<script type="module" src="/sdk.js"></script>`,
    );
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${options.host ?? "127.0.0.1"}:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
