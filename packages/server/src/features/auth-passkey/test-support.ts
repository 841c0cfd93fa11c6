/** Request helpers shared by the passkey tests. */
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { expectKnownError, type Reply } from "../auth-password/test-support.ts";
import { passkeyCredentials } from "./schema.ts";
import { SoftwareAuthenticator } from "./test-authenticator.ts";

/** Where the test pages live: localhost is trusted while `domains.allowLocalhost` is on (the default). */
export const ORIGIN = "http://localhost:3000";

type Page = Parameters<SoftwareAuthenticator["get"]>[1];

let counter = 0;

export function passkeyApi(server: TestServer, project: TestProject) {
  function post(path: string, body: unknown, options: { token?: string; target?: TestProject } = {}) {
    const target = options.target ?? project;
    const extra: Record<string, string> = options.token ? { "x-stack-access-token": options.token } : {};
    return server.request(`/api/v1/auth/passkey${path}`, {
      method: "POST",
      headers: target.headers("client", extra),
      body,
    });
  }

  function newUser(target: TestProject = project) {
    counter += 1;
    return createSignedInUser(server, target.id, {
      primaryEmail: `passkey-${counter}@example.com`,
      primaryEmailVerified: true,
      displayName: `Passkey User ${counter}`,
    });
  }

  async function startRegistration(
    token: string,
    target: TestProject = project,
  ): Promise<{
    options_json: PublicKeyCredentialCreationOptionsJSON;
    code: string;
  }> {
    const reply = await post("/initiate-passkey-registration", {}, { token, target });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  }

  async function startAuthentication(target: TestProject = project): Promise<{
    options_json: PublicKeyCredentialRequestOptionsJSON;
    code: string;
  }> {
    const reply = await post("/initiate-passkey-authentication", {}, { target });
    expect(reply.status, reply.text).toBe(200);
    return reply.body;
  }

  return {
    post,
    newUser,
    startRegistration,
    startAuthentication,

    /** A signed-in user with a passkey registered from `origin`. */
    async userWithPasskey(
      options: { target?: TestProject; origin?: string; authenticator?: SoftwareAuthenticator } = {},
    ) {
      const target = options.target ?? project;
      const signedIn = await newUser(target);
      const authenticator = options.authenticator ?? new SoftwareAuthenticator();
      const started = await startRegistration(signedIn.accessToken, target);
      const credential = authenticator.create(started.options_json, { origin: options.origin ?? ORIGIN });
      const reply = await post(
        "/register",
        { credential, code: started.code },
        { token: signedIn.accessToken, target },
      );
      expect(reply.status, reply.text).toBe(200);
      return { ...signedIn, authenticator };
    },

    /** A whole sign-in: fresh challenge, the authenticator's answer from `page`, and the server's reply. */
    async signIn(authenticator: SoftwareAuthenticator, page: Page = { origin: ORIGIN }, target = project) {
      const started = await startAuthentication(target);
      const response = authenticator.get(started.options_json, page);
      return post("/sign-in", { authentication_response: response, code: started.code }, { target });
    },

    storedCredentials: (userId: string) =>
      server.deps.db.select().from(passkeyCredentials).where(eq(passkeyCredentials.userId, userId)),
  };
}

export type PasskeyApi = ReturnType<typeof passkeyApi>;

export const failed = (reply: Reply, code: "PASSKEY_REGISTRATION_FAILED" | "PASSKEY_AUTHENTICATION_FAILED") =>
  expectKnownError(reply, 400, code);
