/**
 * Shared by the passkey tests: request helpers, and a software authenticator that answers like a browser and a
 * platform authenticator would.
 */
import { createHash, generateKeyPairSync, type KeyObject, randomBytes, sign } from "node:crypto";
import type {
  PublicKeyCredentialCreationOptionsJSON,
  PublicKeyCredentialRequestOptionsJSON,
} from "@simplewebauthn/server";
import { isoBase64URL, isoCBOR } from "@simplewebauthn/server/helpers";
import { eq } from "drizzle-orm";
import { expect } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import type { Reply } from "../../testing/sign-up.ts";
import { openTestServer } from "../../testing/test-file.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { passkeyCredentials } from "./schema.ts";

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

export type PasskeyTestFile = { server: TestServer; project: TestProject; api: PasskeyApi };

/** The opening of the passkey test files: a server with one project that allows passkey sign-in, and its requests. */
export function openPasskeyTestFile(opened: (file: PasskeyTestFile) => void): void {
  openTestServer(async (server) => {
    const project = await server.createProject("Passkey project");
    await project.configure({ "auth.passkey.allowSignIn": true });
    return { project, api: passkeyApi(server, project) };
  }, opened);
}

export const failed = (reply: Reply, code: "PASSKEY_REGISTRATION_FAILED" | "PASSKEY_AUTHENTICATION_FAILED") =>
  expectKnownError(reply, 400, code);

/**
 * A software passkey authenticator for server tests: it answers creation and request options the way a browser and
 * a platform authenticator would (ES256, "none" attestation), so the server's checks run against real signatures
 * without a browser. The e2e test does the same ceremony with Chromium's virtual authenticator.
 */

const sha256 = (data: Uint8Array | string) => new Uint8Array(createHash("sha256").update(data).digest());
const b64url = (bytes: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(bytes));

const FLAG_USER_PRESENT = 0x01;
const FLAG_USER_VERIFIED = 0x04;
const FLAG_ATTESTED_DATA = 0x40;

function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function uint32(value: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setUint32(0, value);
  return out;
}

export type ClientData = { type: string; challenge: string; origin: string; crossOrigin?: boolean };

export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32);
  private readonly privateKey: KeyObject;
  private readonly coseKey: Uint8Array;
  /** What this authenticator stored for the user at creation (the `user.id` of the options). */
  userHandle: string | null = null;
  counter: number;

  constructor(options: { counter?: number } = {}) {
    const { privateKey, publicKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
    this.privateKey = privateKey;
    const jwk = publicKey.export({ format: "jwk" });
    this.coseKey = isoCBOR.encode(
      new Map<number, number | Uint8Array>([
        [1, 2], // kty: EC2
        [3, -7], // alg: ES256
        [-1, 1], // crv: P-256
        [-2, isoBase64URL.toBuffer(jwk.x!)],
        [-3, isoBase64URL.toBuffer(jwk.y!)],
      ]),
    );
    this.counter = options.counter ?? 0;
  }

  get id(): string {
    return b64url(this.credentialId);
  }

  /** The RegistrationResponseJSON a browser would send for `options_json`, with overrides for tampering. */
  create(
    optionsJson: { challenge: string; user: { id: string } },
    page: { origin: string; rpId?: string; clientData?: Partial<ClientData> },
  ) {
    const rpId = page.rpId ?? new URL(page.origin).hostname;
    this.userHandle = optionsJson.user.id;
    const clientDataJSON = JSON.stringify({
      type: "webauthn.create",
      challenge: optionsJson.challenge,
      origin: page.origin,
      crossOrigin: false,
      ...page.clientData,
    });
    const idLength = new Uint8Array([this.credentialId.length >> 8, this.credentialId.length & 0xff]);
    const authData = concat(
      sha256(rpId),
      new Uint8Array([FLAG_USER_PRESENT | FLAG_USER_VERIFIED | FLAG_ATTESTED_DATA]),
      uint32(this.counter),
      new Uint8Array(16), // AAGUID: none
      idLength,
      this.credentialId,
      this.coseKey,
    );
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ["fmt", "none"],
        ["attStmt", new Map()],
        ["authData", authData],
      ]) as Parameters<typeof isoCBOR.encode>[0],
    );
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      authenticatorAttachment: "platform",
      clientExtensionResults: { credProps: { rk: true } },
      response: {
        clientDataJSON: b64url(new TextEncoder().encode(clientDataJSON)),
        attestationObject: b64url(attestationObject),
        transports: ["internal"],
      },
    };
  }

  /** The AuthenticationResponseJSON a browser would send for `options_json`; each call bumps the counter. */
  get(
    optionsJson: { challenge: string },
    page: { origin: string; rpId?: string; clientData?: Partial<ClientData>; counter?: number },
  ) {
    const rpId = page.rpId ?? new URL(page.origin).hostname;
    if (this.counter > 0) this.counter += 1;
    const clientDataJSON = new TextEncoder().encode(
      JSON.stringify({
        type: "webauthn.get",
        challenge: optionsJson.challenge,
        origin: page.origin,
        crossOrigin: false,
        ...page.clientData,
      }),
    );
    const authData = concat(
      sha256(rpId),
      new Uint8Array([FLAG_USER_PRESENT | FLAG_USER_VERIFIED]),
      uint32(page.counter ?? this.counter),
    );
    const signature = sign("sha256", concat(authData, sha256(clientDataJSON)), this.privateKey);
    return {
      id: this.id,
      rawId: this.id,
      type: "public-key" as const,
      authenticatorAttachment: "platform",
      clientExtensionResults: {},
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(new Uint8Array(signature)),
        ...(this.userHandle ? { userHandle: this.userHandle } : {}),
      },
    };
  }
}
