import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "../../crypto/index.ts";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import type { Reply } from "../../testing/sign-up.ts";
import { expireCode } from "../../testing/time.ts";
import { verificationCodes } from "../verification-codes/schema.ts";
import type { PasskeyTestFile } from "./test-support.ts";
import { failed, ORIGIN, openPasskeyTestFile, SoftwareAuthenticator } from "./test-support.ts";
import { RP_ID_PLACEHOLDER } from "./webauthn.ts";

let server: TestServer, project: TestProject, api: PasskeyTestFile["api"];

openPasskeyTestFile((opened) => ({ server, project, api } = opened));

describe("passkey registration", () => {
  it("offers creation options as documented, with a 65 s code", async () => {
    const { user, accessToken } = await api.newUser();
    const { options_json: options, code } = await api.startRegistration(accessToken);
    expect(code).toMatch(/^[0-9a-z]{45}$/);
    expect(options).toMatchObject({
      rp: { id: RP_ID_PLACEHOLDER, name: "Passkey project" },
      user: {
        id: isoBase64URL.fromUTF8String(user.id),
        name: expect.stringMatching(/^passkey-\d+@example\.com$/),
        displayName: expect.stringMatching(/^Passkey User \d+$/),
      },
      timeout: 60000,
      attestation: "none",
      excludeCredentials: [],
      authenticatorSelection: {
        residentKey: "required",
        requireResidentKey: true,
        userVerification: "preferred",
      },
      extensions: { credProps: true },
    });
    expect(options.pubKeyCredParams.map((p: { alg: number }) => p.alg)).toEqual([-8, -7, -257]);
    expect(options.challenge).toMatch(/^[A-Za-z0-9_-]{20,}$/);
    const [row] = await server.deps.db
      .select()
      .from(verificationCodes)
      .where(eq(verificationCodes.codeHash, sha256Hex(code)));
    expect(row!.purpose).toBe("passkey_registration");
    const lifetime = row!.expiresAt.getTime() - row!.createdAt.getTime();
    expect(lifetime).toBeGreaterThan(64_000);
    expect(lifetime).toBeLessThan(66_000);
  });

  it("stores the credential, turns passkey sign-in on and excludes the passkey from later registrations", async () => {
    const { user, accessToken } = await api.newUser();
    const authenticator = new SoftwareAuthenticator();
    const started = await api.startRegistration(accessToken);
    const credential = authenticator.create(started.options_json, { origin: ORIGIN });
    const reply = await api.post("/register", { credential, code: started.code }, { token: accessToken });
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({ user_handle: isoBase64URL.fromUTF8String(user.id) });

    const [stored] = await api.storedCredentials(user.id);
    expect(stored).toMatchObject({
      projectId: project.id,
      credentialId: authenticator.id,
      counter: 0,
      transports: ["internal"],
      lastUsedAt: null,
    });
    expect(isoBase64URL.isBase64URL(stored!.publicKey)).toBe(true);
    const me = await server.request("/api/v1/users/me", {
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
    });
    expect(me.body.passkey_auth_enabled).toBe(true);

    const again = await api.startRegistration(accessToken);
    expect(again.options_json.excludeCredentials).toEqual([
      { id: authenticator.id, type: "public-key", transports: ["internal"] },
    ]);
  });

  it("refuses the same credential twice, and a code started by another user", async () => {
    const { authenticator, accessToken } = await api.userWithPasskey();
    const started = await api.startRegistration(accessToken);
    const duplicate = authenticator.create(started.options_json, { origin: ORIGIN });
    failed(
      await api.post("/register", { credential: duplicate, code: started.code }, { token: accessToken }),
      "PASSKEY_REGISTRATION_FAILED",
    );

    const other = await api.newUser();
    const theirs = await api.startRegistration(other.accessToken);
    const credential = new SoftwareAuthenticator().create(theirs.options_json, { origin: ORIGIN });
    const stolen = await api.post("/register", { credential, code: theirs.code }, { token: accessToken });
    failed(stolen, "PASSKEY_REGISTRATION_FAILED");
    expect(stolen.body.error).toBe("This registration was started by another user.");
    expect(await api.storedCredentials(other.user.id)).toEqual([]);
  });

  it("needs a signed-in user", async () => {
    const initiate = await api.post("/initiate-passkey-registration", {});
    expectKnownError(initiate, 401, "USER_AUTHENTICATION_REQUIRED");
    const { accessToken } = await api.newUser();
    const started = await api.startRegistration(accessToken);
    const credential = new SoftwareAuthenticator().create(started.options_json, { origin: ORIGIN });
    expectKnownError(
      await api.post("/register", { credential, code: started.code }),
      401,
      "USER_AUTHENTICATION_REQUIRED",
    );
  });

  it("refuses tampered, replayed and foreign-origin credentials with a 400", async () => {
    const { user, accessToken } = await api.newUser();
    const attempt = async (
      tamper: (credential: any, options: any) => unknown,
      page: Parameters<SoftwareAuthenticator["create"]>[1] = { origin: ORIGIN },
    ) => {
      const started = await api.startRegistration(accessToken);
      const credential = new SoftwareAuthenticator().create(started.options_json, page);
      const body = tamper(credential, started.options_json) ?? credential;
      return api.post("/register", { credential: body, code: started.code }, { token: accessToken });
    };
    const cases: Array<[string, Reply]> = [
      ["untrusted origin", await attempt(() => undefined, { origin: "https://evil.example.com" })],
      ["origin with a path", await attempt(() => undefined, { origin: "http://localhost:3000/page" })],
      ["origin not a URL", await attempt(() => undefined, { origin: "nonsense", rpId: "localhost" })],
      ["RP id of another site", await attempt(() => undefined, { origin: ORIGIN, rpId: "example.com" })],
      [
        "other challenge",
        await attempt(() => undefined, { origin: ORIGIN, clientData: { challenge: "AAAA" } }),
      ],
      [
        "assertion type",
        await attempt(() => undefined, { origin: ORIGIN, clientData: { type: "webauthn.get" } }),
      ],
      [
        "garbled client data",
        await attempt((c) => ({ ...c, response: { ...c.response, clientDataJSON: "!!!" } })),
      ],
      [
        "client data not JSON",
        await attempt((c) => ({ ...c, response: { ...c.response, clientDataJSON: "bm90IGpzb24" } })),
      ],
      [
        "garbled attestation",
        await attempt((c) => ({ ...c, response: { ...c.response, attestationObject: "AAAA" } })),
      ],
      ["id and rawId differ", await attempt((c) => ({ ...c, rawId: "AAAA" }))],
    ];
    for (const [name, reply] of cases) {
      expect({ name, status: reply.status, code: reply.body?.code }).toEqual({
        name,
        status: 400,
        code: "PASSKEY_REGISTRATION_FAILED",
      });
    }
    expect(await api.storedCredentials(user.id)).toEqual([]);

    // A code answers one ceremony: even a good credential is refused with a used (or expired) code.
    const started = await api.startRegistration(accessToken);
    const authenticator = new SoftwareAuthenticator();
    const credential = authenticator.create(started.options_json, { origin: ORIGIN });
    const register = () => api.post("/register", { credential, code: started.code }, { token: accessToken });
    expect((await register()).status).toBe(200);
    expectKnownError(await register(), 409, "VERIFICATION_CODE_ALREADY_USED");
    const late = await api.startRegistration(accessToken);
    await expireCode(server, late.code);
    const lateCredential = new SoftwareAuthenticator().create(late.options_json, { origin: ORIGIN });
    expectKnownError(
      await api.post("/register", { credential: lateCredential, code: late.code }, { token: accessToken }),
      400,
      "VERIFICATION_CODE_EXPIRED",
    );
  });

  it("validates the body", async () => {
    const { accessToken } = await api.newUser();
    const started = await api.startRegistration(accessToken);
    const credential = new SoftwareAuthenticator().create(started.options_json, { origin: ORIGIN });
    const { attestationObject: _, ...withoutAttestation } = credential.response;
    for (const body of [
      {},
      { credential },
      { code: started.code },
      { credential: { ...credential, response: withoutAttestation }, code: started.code },
      { credential: { ...credential, type: "password" }, code: started.code },
      { credential: "text", code: started.code },
      { credential, code: "short" },
      { credential, code: started.code, extra: 1 },
    ]) {
      const reply = await api.post("/register", body, { token: accessToken });
      expect({ body: JSON.stringify(body).slice(0, 60), code: reply.body?.code }).toMatchObject({
        code: "SCHEMA_ERROR",
      });
    }
  });

  it("trusts the project's domains, and localhost only while allowed", async () => {
    const strict = await server.createProject("Strict passkeys");
    await strict.configure({
      "auth.passkey.allowSignIn": true,
      "domains.allowLocalhost": false,
      "domains.trustedDomains": { app: { baseUrl: "https://app.example.com" } },
    });
    const { authenticator } = await api.userWithPasskey({
      target: strict,
      origin: "https://app.example.com",
    });
    const ok = await api.signIn(authenticator, { origin: "https://app.example.com" }, strict);
    expect(ok.status, ok.text).toBe(200);
    failed(
      await api.signIn(authenticator, { origin: "https://app.example.com:8443" }, strict),
      "PASSKEY_AUTHENTICATION_FAILED",
    );
    failed(await api.signIn(authenticator, { origin: ORIGIN }, strict), "PASSKEY_AUTHENTICATION_FAILED");

    const { accessToken } = await api.newUser(strict);
    const started = await api.startRegistration(accessToken, strict);
    const credential = new SoftwareAuthenticator().create(started.options_json, { origin: ORIGIN });
    const reply = await api.post(
      "/register",
      { credential, code: started.code },
      { token: accessToken, target: strict },
    );
    failed(reply, "PASSKEY_REGISTRATION_FAILED");
    expect(reply.body.error).toContain("not a trusted domain");
  });
});

it("refuses every passkey route while passkeys are off for the project", async () => {
  const closed = await server.createProject("No passkeys");
  const { accessToken } = await api.newUser(closed);
  for (const path of [
    "/initiate-passkey-registration",
    "/register",
    "/initiate-passkey-authentication",
    "/sign-in",
  ]) {
    const body =
      path === "/register"
        ? {
            credential: new SoftwareAuthenticator().create(
              { challenge: "AAAA", user: { id: "AAAA" } },
              { origin: ORIGIN },
            ),
            code: "0".repeat(45),
          }
        : path === "/sign-in"
          ? {
              authentication_response: new SoftwareAuthenticator().get(
                { challenge: "AAAA" },
                { origin: ORIGIN },
              ),
              code: "0".repeat(45),
            }
          : {};
    const reply = await api.post(path, body, { token: accessToken, target: closed });
    expectKnownError(reply, 400, "PASSKEY_AUTHENTICATION_NOT_ENABLED");
  }
});
