/**
 * The install lines the product shows (the dashboard's keys page, `gatehouse init`), in one place so that what a
 * newcomer is told is what e2e/packages/install-lines.test.ts runs.
 *
 * First the official SDK, unchanged, pointed at this server with `baseUrl`: the release our CI drives against the
 * server (packages/server's `stackframe-js-latest`, src/compat). Second, Gatehouse's own packages, which are not
 * on a registry: the server hands out their tarballs at `/sdk/…` once `npm run build:sdk` has packed them.
 */

/** The official SDK release tested against Gatehouse in CI. */
export const OFFICIAL_SDK_VERSION = "2.8.108";

export type SdkKind = "react" | "js";

/** `npm install @stackframe/react@2.8.108`: the official SDK, for React apps or any other JavaScript. */
export function officialInstallLine(kind: SdkKind): string {
  return `npm install @stackframe/${kind}@${OFFICIAL_SDK_VERSION}`;
}

/** The tarballs the server serves at `/sdk/<file>`, in dependency order (scripts/build-sdk.mjs packs them). */
export const SDK_TARBALLS = {
  shared: "gatehouse-shared.tgz",
  js: "gatehouse-js.tgz",
  react: "gatehouse-react.tgz",
} as const;

/** What packs them, run in the Gatehouse folder (the server answers 404 with this until then). */
export const BUILD_SDK_COMMAND = "npm run build:sdk";

/**
 * `npm install <server>/sdk/gatehouse-shared.tgz <server>/sdk/gatehouse-js.tgz [<server>/sdk/gatehouse-react.tgz]`:
 * each package with the ones it depends on, which npm matches to the tarballs given in the same command.
 */
export function gatehouseInstallLine(kind: SdkKind, serverUrl: string): string {
  const base = serverUrl.replace(/\/+$/, "");
  const files = kind === "react" ? Object.values(SDK_TARBALLS) : [SDK_TARBALLS.shared, SDK_TARBALLS.js];
  return `npm install ${files.map((file) => `${base}/sdk/${file}`).join(" ")}`;
}

/** The kinds of app the keys page and `gatehouse init` write keys for. */
export type AppFramework = "vite" | "next" | "node" | "plain";

/** What to install for an app of each kind, and how the official SDK is pointed at this server. */
export type InstallAdvice = {
  /** The official SDK's install line. */
  official: string;
  /** How that SDK is created with this server as its `baseUrl`. */
  usage: string;
  /** Our own packages from this server's `/sdk/` (after BUILD_SDK_COMMAND). */
  gatehouse: string;
};

const USAGE: Record<AppFramework, string> = {
  vite: 'new StackClientApp({ projectId: import.meta.env.VITE_STACK_PROJECT_ID, publishableClientKey: import.meta.env.VITE_STACK_PUBLISHABLE_CLIENT_KEY, baseUrl: import.meta.env.VITE_STACK_API_URL, tokenStore: "cookie" }) from @stackframe/react, in a <StackProvider>, with <StackHandler> on /handler/*.',
  next: 'new StackClientApp({ projectId: process.env.NEXT_PUBLIC_STACK_PROJECT_ID, publishableClientKey: process.env.NEXT_PUBLIC_STACK_PUBLISHABLE_CLIENT_KEY, baseUrl: process.env.NEXT_PUBLIC_STACK_API_URL, tokenStore: "cookie" }) from @stackframe/react, in a <StackProvider> in app/layout.tsx, with <StackHandler> on app/handler/[...stack].',
  node: 'new StackServerApp({ projectId: process.env.STACK_PROJECT_ID, publishableClientKey: process.env.STACK_PUBLISHABLE_CLIENT_KEY, secretServerKey: process.env.STACK_SECRET_SERVER_KEY, baseUrl: process.env.STACK_API_URL, tokenStore: "memory" }) from @stackframe/js (node --env-file=.env).',
  plain:
    "the snippet above, from @stackframe/js. The secret server key never goes into a browser: keep it for your server.",
};

export function installAdvice(framework: AppFramework, serverUrl: string): InstallAdvice {
  const kind: SdkKind = framework === "vite" || framework === "next" ? "react" : "js";
  return {
    official: officialInstallLine(kind),
    usage: USAGE[framework],
    gatehouse: gatehouseInstallLine(kind, serverUrl),
  };
}
