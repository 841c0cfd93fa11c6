import type { WireSignInOrUpTokens } from "@gatehouse/shared";
import { z } from "zod";
import { SECURE_TOKEN_LENGTH } from "../../crypto/index.ts";
import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { wireFit } from "../../http/wire-schema.ts";
import { initiateAuthentication, signInWithPasskey } from "./authentication.ts";
import { initiateRegistration, registerPasskey } from "./registration.ts";
import { authenticationResponseSchema, registrationResponseSchema } from "./webauthn.ts";

const tags = ["Passkeys"];
const anyKey = routeGroup({ tags, access: ["client", "server", "admin"] });
const code = z.string().length(SECURE_TOKEN_LENGTH);
/** The WebAuthn options JSON is the library's; it is passed through as is. */
const ceremonyStart = z.object({ options_json: z.looseObject({}), code: z.string() });

export const passkeyRoutes: AnyRoute[] = [
  anyKey.post("/auth/passkey/initiate-passkey-registration", {
    summary: "Start registering a passkey for the signed-in user: WebAuthn creation options and their code",
    response: { body: ceremonyStart },
    handler: async ({ deps, auth, clientIp }) => ({ body: await initiateRegistration(deps, auth, clientIp) }),
  }),
  anyKey.post("/auth/passkey/register", {
    summary: "Finish registering a passkey with the authenticator's response",
    request: { body: z.strictObject({ credential: registrationResponseSchema, code }) },
    response: { body: z.object({ user_handle: z.string() }) },
    handler: async ({ deps, auth, body }) => ({
      body: await registerPasskey(deps, auth, { credential: body.credential, code: body.code }),
    }),
  }),
  anyKey.post("/auth/passkey/initiate-passkey-authentication", {
    summary: "Start signing in with a passkey: WebAuthn request options and their code",
    response: { body: ceremonyStart },
    handler: async ({ deps, auth, clientIp }) => ({
      body: await initiateAuthentication(deps, auth, clientIp),
    }),
  }),
  anyKey.post("/auth/passkey/sign-in", {
    summary: "Sign in with a passkey's response to the challenge",
    request: { body: z.strictObject({ authentication_response: authenticationResponseSchema, code }) },
    response: {
      body: wireFit<WireSignInOrUpTokens>()(
        z.object({
          access_token: z.string(),
          refresh_token: z.string(),
          is_new_user: z.literal(false),
          user_id: z.string(),
        }),
      ),
    },
    handler: async ({ deps, auth, body, request, clientIp }) => ({
      body: await signInWithPasskey(deps, auth, {
        response: body.authentication_response,
        code: body.code,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
      }),
    }),
  }),
];
