/**
 * Small internal routes of PROTOCOL-EXTRA §8.13 that read no project: the handler pages' component versions (the
 * reference's dev tool fetches them with a bare `fetch`) and the addresses of this API.
 */
import { z } from "zod";
import { routeGroup } from "../../http/route.ts";

const tags = ["System"];
const open = routeGroup({ tags, access: "public" });

/** The reference's page components, each at version 1 (the only version its dev tool knows). */
const PAGE_COMPONENTS = [
  "signIn",
  "signUp",
  "signOut",
  "emailVerification",
  "passwordReset",
  "forgotPassword",
  "oauthCallback",
  "magicLinkCallback",
  "accountSettings",
  "teamInvitation",
  "mfa",
  "error",
  "onboarding",
] as const;

const componentVersion = z.object({ version: z.number(), changelogs: z.record(z.string(), z.string()) });

/**
 * The API's addresses, first the one this server answers at. The reference adds a fallback for its development
 * ports (`http://localhost:<p>02` -> `:<p>10`), a rule its SDK applies by itself too; it is kept so that an app's
 * SDK sees the same list from either server.
 */
export function backendUrls(baseUrl: string): string[] {
  const urls = [baseUrl];
  const development = /^(http:\/\/localhost:\d*)02$/.exec(baseUrl.replace(/\/+$/, ""));
  if (development) urls.push(`${development[1]}10`);
  return urls;
}

export const internalSystemRoutes = [
  open.get("/internal/component-versions", {
    summary: "The versions of the hosted page components (sign-in, sign-up, …), for the SDK's dev tool",
    response: { body: z.object({ versions: z.record(z.string(), componentVersion) }) },
    handler: async () => ({
      body: {
        versions: Object.fromEntries(
          PAGE_COMPONENTS.map((page) => [page, { version: 1, changelogs: { "1": "Initial version." } }]),
        ),
      },
    }),
  }),
  open.get("/internal/backend-urls", {
    summary: "The addresses of this API, the first one preferred",
    response: { body: z.object({ urls: z.array(z.string()) }) },
    handler: async ({ deps }) => ({ body: { urls: backendUrls(deps.env.baseUrl) } }),
  }),
];
