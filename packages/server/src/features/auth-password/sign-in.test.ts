import { hash as bcryptHash } from "@node-rs/bcrypt";
import { decodeJwt } from "jose";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hashPassword, verifyPassword, verifyPasswordAgainstDummy } from "../../crypto/index.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { expectKnownError, uniqueEmail } from "../../testing/known-errors.ts";
import { passwordApi, storedUser } from "../../testing/sign-up.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { type PasswordVerifier, verifyEmailAndPassword } from "./credentials.ts";

let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof passwordApi>;

beforeAll(async () => {
  server = await createTestServer();
  project = await server.createProject("Sign-in");
  api = passwordApi(server, project);
});
afterAll(() => server.close());

const PASSWORD = "correct horse battery";

async function userWithPassword(password = PASSWORD, email = uniqueEmail()) {
  const { user } = await createSignedInUser(server, project.id, {
    primaryEmail: email,
    passwordHash: await hashPassword(password),
  });
  return { user, email };
}

describe("POST /auth/password/sign-in", () => {
  it("signs in with the right password, whatever the email's case", async () => {
    const { user, email } = await userWithPassword();
    const response = await api.signIn(email.toUpperCase(), PASSWORD);
    expect(response.status, response.text).toBe(200);
    expect(Object.keys(response.body).sort()).toEqual(["access_token", "refresh_token", "user_id"]);
    expect(response.body.user_id).toBe(user.id);
    expect(decodeJwt(response.body.access_token).sub).toBe(user.id);
    expect((await api.refresh(response.body.refresh_token)).status).toBe(200);
  });

  it("gives the same answer for a wrong password, an unknown email and a user without a password", async () => {
    const { email } = await userWithPassword();
    const noPassword = uniqueEmail("otp-only");
    await createSignedInUser(server, project.id, { primaryEmail: noPassword, otpAuthEnabled: true });
    const answers = [
      await api.signIn(email, "wrong password"),
      await api.signIn(uniqueEmail("nobody"), PASSWORD),
      await api.signIn(noPassword, PASSWORD),
    ];
    for (const answer of answers) {
      expectKnownError(answer, 400, "EMAIL_PASSWORD_MISMATCH");
      expect(answer.body.error).toBe("Wrong e-mail or password.");
    }
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
  });

  it("is not fooled by another project's user", async () => {
    const { email } = await userWithPassword();
    const other = await server.createProject("Sign-in other");
    expectKnownError(
      await passwordApi(server, other).signIn(email, PASSWORD),
      400,
      "EMAIL_PASSWORD_MISMATCH",
    );
  });

  it("upgrades an imported bcrypt hash to argon2id on a successful sign-in", async () => {
    const email = uniqueEmail("imported");
    const { user } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      passwordHash: await bcryptHash(PASSWORD, { cost: 10 }),
    });
    expectKnownError(await api.signIn(email, "not the password"), 400, "EMAIL_PASSWORD_MISMATCH");
    expect((await storedUser(server, project.id, user.id))?.passwordHash).toMatch(/^\$2[aby]\$/);

    expect((await api.signIn(email, PASSWORD)).status).toBe(200);
    const upgraded = (await storedUser(server, project.id, user.id))?.passwordHash;
    expect(upgraded).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect((await api.signIn(email, PASSWORD)).status).toBe(200);
    // Already current: a further sign-in leaves the hash alone.
    expect((await storedUser(server, project.id, user.id))?.passwordHash).toBe(upgraded);
  });

  it("asks users with TOTP for the second factor", async () => {
    const email = uniqueEmail("mfa");
    await createSignedInUser(server, project.id, {
      primaryEmail: email,
      passwordHash: await hashPassword(PASSWORD),
      totpSecretEncrypted: "present means TOTP is on",
    });
    const response = await api.signIn(email, PASSWORD);
    expect(response.headers.get("x-stack-known-error")).toBe("MULTI_FACTOR_AUTHENTICATION_REQUIRED");
    expect(response.body.details.attempt_code).toMatch(/^[0-9a-z]{45}$/);
  });

  it("is refused while password sign-in is off", async () => {
    const closed = await server.createProject("No passwords");
    const closedApi = passwordApi(server, closed);
    await closed.configure({ "auth.password.allowSignIn": false });
    expectKnownError(
      await closedApi.signIn("a@example.com", PASSWORD),
      400,
      "PASSWORD_AUTHENTICATION_NOT_ENABLED",
    );
  });

  it("answers bad bodies with SCHEMA_ERROR", async () => {
    const bodies = [
      {},
      { email: "a@example.com" },
      { email: "a@example.com", password: 1 },
      [],
      // The email keys the rate-limit counters; a NUL byte there used to fail their insert with a 500.
      { email: "nul\u0000@example.com", password: "whatever" },
    ];
    for (const body of bodies) {
      const response = await api.post("/auth/password/sign-in", body);
      expectKnownError(response, 400, "SCHEMA_ERROR", expect.anything() as never);
    }
  });
});

describe("password verification count", () => {
  function countingVerifier() {
    const calls = { verify: 0, dummy: 0 };
    const verifier: PasswordVerifier = {
      verify: (hash, password) => {
        calls.verify += 1;
        return verifyPassword(hash, password);
      },
      verifyDummy: (password) => {
        calls.dummy += 1;
        return verifyPasswordAgainstDummy(password);
      },
    };
    return { calls, verifier };
  }

  it("is exactly one per attempt, whether or not the account exists or has a password", async () => {
    const { email } = await userWithPassword();
    const noPassword = uniqueEmail("no-password");
    await createSignedInUser(server, project.id, { primaryEmail: noPassword });
    const cases: [string, string, { verify: number; dummy: number }, boolean][] = [
      [email, PASSWORD, { verify: 1, dummy: 0 }, true],
      [email, "wrong password", { verify: 1, dummy: 0 }, false],
      [uniqueEmail("unknown"), PASSWORD, { verify: 0, dummy: 1 }, false],
      [noPassword, PASSWORD, { verify: 0, dummy: 1 }, false],
    ];
    for (const [candidate, password, expected, signsIn] of cases) {
      const { calls, verifier } = countingVerifier();
      const user = await verifyEmailAndPassword(server.deps.db, project.id, candidate, password, verifier);
      expect(user !== null).toBe(signsIn);
      expect(calls).toEqual(expected);
    }
  });
});

describe("sign-in rate limits", () => {
  it("lets exactly 10 parallel attempts per account through, then answers 429 with Retry-After", async () => {
    const { email } = await userWithPassword();
    const attempts = await Promise.all(Array.from({ length: 15 }, () => api.signIn(email, "wrong password")));
    const statuses = attempts.map((a) => a.status);
    expect(statuses.filter((s) => s === 400)).toHaveLength(10);
    const limited = attempts.filter((a) => a.status === 429);
    expect(limited).toHaveLength(5);
    for (const answer of limited) {
      const retryAfter = Number(answer.headers.get("retry-after"));
      expect(retryAfter).toBeGreaterThan(0);
      expect(retryAfter).toBeLessThanOrEqual(300);
    }
    // Even the right password waits now; other accounts do not.
    expect((await api.signIn(email, PASSWORD)).status).toBe(429);
    const { email: otherEmail } = await userWithPassword();
    expect((await api.signIn(otherEmail, PASSWORD)).status).toBe(200);
  });
});

describe("sign-in rate limits per IP", () => {
  let proxied: TestServer;
  let proxiedProject: TestProject;
  beforeAll(async () => {
    // Two proxies in front: the outer one appends the client's address, the inner one the outer one's (10.0.0.1).
    proxied = await createTestServer({ trustProxy: { hops: 2 } });
    proxiedProject = await proxied.createProject("Proxied");
  });
  afterAll(() => proxied.close());

  it("lets exactly 60 parallel attempts from one IP through, spread over many accounts", async () => {
    const proxiedApi = passwordApi(proxied, proxiedProject);
    const from = (ip: string) => ({ "x-forwarded-for": `${ip}, 10.0.0.1` });
    const attempts = await Promise.all(
      Array.from({ length: 65 }, (_, i) =>
        proxiedApi.signIn(uniqueEmail(`spray${i}`), PASSWORD, from("203.0.113.7")),
      ),
    );
    expect(attempts.filter((a) => a.status === 400)).toHaveLength(60);
    expect(attempts.filter((a) => a.status === 429)).toHaveLength(5);
    expect((await proxiedApi.signIn(uniqueEmail(), PASSWORD, from("203.0.113.8"))).status).toBe(400);
  });

  it("does not let someone failing on purpose lock the account's owner out", async () => {
    const proxiedApi = passwordApi(proxied, proxiedProject);
    const from = (ip: string) => ({ "x-forwarded-for": `${ip}, 10.0.0.1` });
    const email = uniqueEmail("victim");
    await createSignedInUser(proxied, proxiedProject.id, {
      primaryEmail: email,
      passwordHash: await hashPassword(PASSWORD),
    });
    const attacker = await Promise.all(
      Array.from({ length: 12 }, () => proxiedApi.signIn(email, "wrong password", from("198.51.100.66"))),
    );
    expect(attacker.filter((a) => a.status === 429)).toHaveLength(2);
    // The attacker's address is blocked for this account; the owner, elsewhere, is not.
    expect((await proxiedApi.signIn(email, PASSWORD, from("198.51.100.66"))).status).toBe(429);
    expect((await proxiedApi.signIn(email, PASSWORD, from("192.0.2.10"))).status).toBe(200);
  });
  // The ceiling per account, which failures from many addresses fill: lockout.test.ts.
});
