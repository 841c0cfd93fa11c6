import { createHmac, randomBytes } from "node:crypto";
import { isoBase64URL } from "@simplewebauthn/server/helpers";
import { and, eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import type { TestProject, TestServer } from "../../testing/harness.ts";
import { expectKnownError } from "../../testing/known-errors.ts";
import type { Reply } from "../../testing/sign-up.ts";
import { expireCode } from "../../testing/time.ts";
import { passkeyCredentials } from "./schema.ts";
import type { PasskeyTestFile } from "./test-support.ts";
import { failed, ORIGIN, openPasskeyTestFile, SoftwareAuthenticator } from "./test-support.ts";
import { RP_ID_PLACEHOLDER } from "./webauthn.ts";

let server: TestServer, project: TestProject, api: PasskeyTestFile["api"];

openPasskeyTestFile((opened) => ({ server, project, api } = opened));

describe("passkey sign-in", () => {
  it("offers discoverable-credential request options", async () => {
    const { options_json: options, code } = await api.startAuthentication();
    expect(code).toMatch(/^[0-9a-z]{45}$/);
    expect(options).toMatchObject({
      rpId: RP_ID_PLACEHOLDER,
      allowCredentials: [],
      userVerification: "preferred",
      timeout: 60000,
      challenge: expect.stringMatching(/^[A-Za-z0-9_-]{20,}$/),
    });
  });

  it("signs the passkey's owner in and records the use", async () => {
    const { user, authenticator } = await api.userWithPasskey();
    const reply = await api.signIn(authenticator);
    expect(reply.status, reply.text).toBe(200);
    expect(reply.body).toEqual({
      access_token: expect.any(String),
      refresh_token: expect.any(String),
      is_new_user: false,
      user_id: user.id,
    });
    const me = await server.request("/api/v1/users/me", {
      headers: project.headers("client", { "x-stack-access-token": reply.body.access_token }),
    });
    expect(me.body.id).toBe(user.id);
    const [stored] = await api.storedCredentials(user.id);
    expect(stored!.lastUsedAt).toBeInstanceOf(Date);
  });

  it("moves the signature counter forward and refuses one that does not", async () => {
    const { user, authenticator } = await api.userWithPasskey({
      authenticator: new SoftwareAuthenticator({ counter: 5 }),
    });
    expect((await api.storedCredentials(user.id))[0]!.counter).toBe(5);
    expect((await api.signIn(authenticator)).status).toBe(200);
    expect((await api.storedCredentials(user.id))[0]!.counter).toBe(6);
    failed(await api.signIn(authenticator, { origin: ORIGIN, counter: 6 }), "PASSKEY_AUTHENTICATION_FAILED");
    failed(await api.signIn(authenticator, { origin: ORIGIN, counter: 2 }), "PASSKEY_AUTHENTICATION_FAILED");
    expect((await api.storedCredentials(user.id))[0]!.counter).toBe(6);
    expect((await api.signIn(authenticator)).status).toBe(200);
  });

  it("refuses replays, tampering, unknown passkeys and foreign user handles with a 400", async () => {
    const { authenticator } = await api.userWithPasskey();
    const started = await api.startAuthentication();
    const response = authenticator.get(started.options_json, { origin: ORIGIN });
    const send = (body: unknown, code = started.code) =>
      api.post("/sign-in", { authentication_response: body, code });
    expect((await send(response)).status).toBe(200);
    expectKnownError(await send(response), 409, "VERIFICATION_CODE_ALREADY_USED");
    // The same signed answer under a fresh code: its challenge is the old one.
    failed(await send(response, (await api.startAuthentication()).code), "PASSKEY_AUTHENTICATION_FAILED");

    const fresh = async (
      tamper: (r: any) => unknown,
      page = { origin: ORIGIN } as Parameters<SoftwareAuthenticator["get"]>[1],
    ) => {
      const next = await api.startAuthentication();
      const answer = authenticator.get(next.options_json, page);
      return send(tamper(answer) ?? answer, next.code);
    };
    const flip = (value: string) => {
      const bytes = isoBase64URL.toBuffer(value);
      bytes[bytes.length - 1]! ^= 0xff;
      return isoBase64URL.fromBuffer(bytes);
    };
    const other = await api.newUser();
    const cases: Array<[string, Reply]> = [
      [
        "bad signature",
        await fresh((r) => ({ ...r, response: { ...r.response, signature: flip(r.response.signature) } })),
      ],
      ["garbled signature", await fresh((r) => ({ ...r, response: { ...r.response, signature: "AAAA" } }))],
      [
        "garbled authenticator data",
        await fresh((r) => ({ ...r, response: { ...r.response, authenticatorData: "AA" } })),
      ],
      [
        "garbled client data",
        await fresh((r) => ({ ...r, response: { ...r.response, clientDataJSON: "%%%" } })),
      ],
      ["untrusted origin", await fresh(() => undefined, { origin: "https://evil.example.com" })],
      ["RP id of another site", await fresh(() => undefined, { origin: ORIGIN, rpId: "evil.example.com" })],
      [
        "creation type",
        await fresh(() => undefined, { origin: ORIGIN, clientData: { type: "webauthn.create" } }),
      ],
      ["unknown passkey", await fresh((r) => ({ ...r, id: "AAAAAAAA", rawId: "AAAAAAAA" }))],
      [
        "another user's handle",
        await fresh((r) => ({
          ...r,
          response: { ...r.response, userHandle: isoBase64URL.fromUTF8String(other.user.id) },
        })),
      ],
    ];
    for (const [name, reply] of cases) {
      expect({ name, status: reply.status, code: reply.body?.code }).toEqual({
        name,
        status: 400,
        code: "PASSKEY_AUTHENTICATION_FAILED",
      });
    }
    expect(cases.find(([name]) => name === "unknown passkey")![1].body.error).toBe("Passkey not found");
  });

  it("refuses expired codes and codes of another purpose or project", async () => {
    const { authenticator, accessToken } = await api.userWithPasskey();
    const started = await api.startAuthentication();
    await expireCode(server, started.code);
    const response = authenticator.get(started.options_json, { origin: ORIGIN });
    expectKnownError(
      await api.post("/sign-in", { authentication_response: response, code: started.code }),
      400,
      "VERIFICATION_CODE_EXPIRED",
    );

    const registration = await api.startRegistration(accessToken);
    const withRegistrationCode = authenticator.get(registration.options_json, { origin: ORIGIN });
    expectKnownError(
      await api.post("/sign-in", { authentication_response: withRegistrationCode, code: registration.code }),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );

    const elsewhere = await server.createProject("Other passkey project");
    await elsewhere.configure({ "auth.passkey.allowSignIn": true });
    const ours = await api.startAuthentication();
    const answer = authenticator.get(ours.options_json, { origin: ORIGIN });
    expectKnownError(
      await api.post("/sign-in", { authentication_response: answer, code: ours.code }, { target: elsewhere }),
      404,
      "VERIFICATION_CODE_NOT_FOUND",
    );
    // Its own code does not help either: the passkey belongs to the other project.
    const reply = await api.signIn(authenticator, { origin: ORIGIN }, elsewhere);
    failed(reply, "PASSKEY_AUTHENTICATION_FAILED");
    expect(reply.body.error).toBe("Passkey not found");
  });

  it("validates the body", async () => {
    const { authenticator } = await api.userWithPasskey();
    const started = await api.startAuthentication();
    const response = authenticator.get(started.options_json, { origin: ORIGIN });
    const { signature: _, ...unsigned } = response.response;
    for (const body of [
      {},
      { authentication_response: response },
      { code: started.code },
      { authentication_response: { ...response, response: unsigned }, code: started.code },
      { authentication_response: { ...response, id: 42 }, code: started.code },
      { authentication_response: response, code: started.code, credential: {} },
    ]) {
      const reply = await api.post("/sign-in", body);
      expect(reply.body?.code, JSON.stringify(body).slice(0, 80)).toBe("SCHEMA_ERROR");
    }
    // The code was never looked at, so it still works.
    expect(
      (await api.post("/sign-in", { authentication_response: response, code: started.code })).status,
    ).toBe(200);
  });

  it("asks for the second factor of a user with TOTP", async () => {
    const { user, authenticator, accessToken } = await api.userWithPasskey();
    const secret = randomBytes(20);
    const patch = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
      body: { totp_secret_base64: secret.toString("base64") },
    });
    expect(patch.status, patch.text).toBe(200);
    const reply = await api.signIn(authenticator);
    expect(reply.body.code, reply.text).toBe("MULTI_FACTOR_AUTHENTICATION_REQUIRED");

    const step = Buffer.alloc(8);
    step.writeBigUInt64BE(BigInt(Math.floor(Date.now() / 30_000)));
    const hmac = createHmac("sha1", secret).update(step).digest();
    const totp = ((hmac.readUInt32BE(hmac[19]! & 0xf) & 0x7fffffff) % 1_000_000).toString().padStart(6, "0");
    const mfa = await server.request("/api/v1/auth/mfa/sign-in", {
      method: "POST",
      headers: project.headers("client"),
      body: { type: "totp", totp, code: reply.body.details.attempt_code },
    });
    expect(mfa.status, mfa.text).toBe(200);
    expect(mfa.body).toMatchObject({ user_id: user.id, is_new_user: false });
  });

  it("stops working when the user turns passkey sign-in off, and goes away with the user", async () => {
    const { user, authenticator, accessToken } = await api.userWithPasskey();
    const off = await server.request("/api/v1/users/me", {
      method: "PATCH",
      headers: project.headers("client", { "x-stack-access-token": accessToken }),
      body: { passkey_auth_enabled: false },
    });
    expect(off.status, off.text).toBe(200);
    failed(await api.signIn(authenticator), "PASSKEY_AUTHENTICATION_FAILED");

    const deleted = await server.request(`/api/v1/users/${user.id}`, {
      method: "DELETE",
      headers: project.headers("server"),
    });
    expect(deleted.status, deleted.text).toBe(200);
    expect(
      await server.deps.db
        .select()
        .from(passkeyCredentials)
        .where(
          and(
            eq(passkeyCredentials.projectId, project.id),
            eq(passkeyCredentials.credentialId, authenticator.id),
          ),
        ),
    ).toEqual([]);
    const reply = await api.signIn(authenticator);
    failed(reply, "PASSKEY_AUTHENTICATION_FAILED");
    expect(reply.body.error).toBe("Passkey not found");
  });
});
