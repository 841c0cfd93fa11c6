import { and, eq } from "drizzle-orm";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { hashPassword } from "../../crypto/index.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { knownSignInAddresses } from "../../rate-limit/schema.ts";
import { createTestServer, type TestProject, type TestServer } from "../../testing/harness.ts";
import { uniqueEmail } from "../../testing/known-errors.ts";
import { codeFromEmail, emailsTo, latestEmailTo } from "../../testing/outbox.ts";
import { passwordApi } from "../../testing/sign-up.ts";
import { statementsSentBy } from "../../testing/statements.ts";
import { setClock, useRealClock } from "../../testing/time.ts";
import { createSignedInUser } from "../../testing/users.ts";
import { sessions } from "../sessions/schema.ts";

/**
 * Issue 19 item 1: failures from many addresses must not lock the owner out. The server trusts one proxy, so each
 * request names its client address in `x-forwarded-for`; the clock (Date only) is moved, never waited for.
 */
const PASSWORD = "correct horse battery";
const CEILING = RATE_LIMITS.signInPerAccount.limit;
const HOME = "192.0.2.10";

let server: TestServer;
let project: TestProject;
let api: ReturnType<typeof passwordApi>;
let now: number;

beforeAll(async () => {
  server = await createTestServer({ trustProxy: { hops: 1 } });
});
afterAll(() => server.close());
beforeEach(async () => {
  now = Date.now();
  setClock(now);
  // A project per test: the account's counters are per project.
  project = await server.createProject("Lockout");
  api = passwordApi(server, project);
});
afterEach(useRealClock);

const from = (ip: string) => ({ "x-forwarded-for": ip });

/**
 * The first test runs at the built-in ceiling of 100; the others lower it for their project to 10 (which also shows
 * the ceiling follows the project's config), since every attempt costs an Argon2 hash.
 */
const SMALL_CEILING = 10;
function lowerCeiling() {
  return project.configure({ "gatehouse.rateLimits.signInPerAccount.limit": SMALL_CEILING });
}
const advance = (seconds: number) => {
  now += seconds * 1000;
  setClock(now);
};

async function owner() {
  const email = uniqueEmail("owner");
  const { user } = await createSignedInUser(server, project.id, {
    primaryEmail: email,
    passwordHash: await hashPassword(PASSWORD),
  });
  return { email, user };
}

/** `count` wrong passwords at once, each from an address of its own that never signed in. */
function attack(email: string, count: number, subnet = 18) {
  return Promise.all(
    Array.from({ length: count }, (_, i) =>
      api.signIn(email, "wrong password", from(`198.${subnet}.${Math.floor(i / 250)}.${(i % 250) + 1}`)),
    ),
  );
}

const statuses = (answers: { status: number }[]) => answers.map((a) => a.status);
const count = (answers: { status: number }[], status: number) =>
  answers.filter((a) => a.status === status).length;
const retryAfter = (answer: { headers: Headers }) => Number(answer.headers.get("retry-after"));
const ceilingNotices = async (email: string) =>
  (await emailsTo(server, project.id, email)).filter((e) => e.kind === "sign_in_attempts");

describe("the per-account ceiling of password attempts", () => {
  it("holds the attacker, lets the owner in from an address they signed in from, and tells them once", async () => {
    const { email } = await owner();
    expect((await api.signIn(email, PASSWORD, from(HOME))).status).toBe(200);

    // The owner's own sign-in counted once (HOME was not known yet), so CEILING - 1 more fill the ceiling; of the
    // three past it, one takes the slow lane's pass and two are told to wait.
    const attempts = await attack(email, CEILING + 2);
    expect(count(attempts, 400)).toBe(CEILING);
    const held = attempts.filter((a) => a.status === 429);
    expect(held).toHaveLength(2);
    for (const answer of held) {
      expect(retryAfter(answer)).toBeGreaterThanOrEqual(1);
      expect(retryAfter(answer)).toBeLessThanOrEqual(2);
    }
    // A fresh attacker address, even with the right password, waits too.
    expect((await api.signIn(email, PASSWORD, from("198.51.100.9"))).status).toBe(429);

    // The owner at home is not held: not even a typo there counts towards the ceiling or waits for it.
    expect((await api.signIn(email, "a typo", from(HOME))).status).toBe(400);
    const home = await api.signIn(email, PASSWORD, from(HOME));
    expect(home.status, home.text).toBe(200);

    const notices = await ceilingNotices(email);
    expect(notices).toHaveLength(1);
    expect(notices[0]!.subject).toBe("Many failed sign-ins to your Lockout account");
    expect(notices[0]!.text).toContain(`There were ${CEILING} attempts`);

    // The attack goes on in the next window and past the ceiling again (lowered here to spare hashes): still one
    // email that day.
    advance(RATE_LIMITS.signInPerAccount.windowSeconds);
    await lowerCeiling();
    expect(count(await attack(email, SMALL_CEILING + 2, 19), 429)).toBe(1);
    expect(await ceilingNotices(email)).toHaveLength(1);
  });

  it("slows new addresses down past the ceiling, with waits that double, instead of walling them off", async () => {
    await lowerCeiling();
    const { email } = await owner();
    expect(count(await attack(email, SMALL_CEILING + 1), 400)).toBe(SMALL_CEILING + 1);

    // The owner on a new phone: told to wait 2 s (the slow lane's first pass went to the attacker), not half an hour.
    const phone = "203.0.113.5";
    const refused = await api.signIn(email, PASSWORD, from(phone));
    expect(refused.status).toBe(429);
    expect(retryAfter(refused)).toBe(2);
    advance(retryAfter(refused));
    const retried = await api.signIn(email, PASSWORD, from(phone));
    expect(retried.status, retried.text).toBe(200);

    // That pass makes the next one wait 4 s, then 8 s: exactly as long as Retry-After says, not a second more.
    for (const wait of [4, 8]) {
      const early = await api.signIn(email, "wrong password", from("198.51.100.20"));
      expect(statuses([early])).toEqual([429]);
      expect(retryAfter(early)).toBe(wait);
      advance(wait - 1);
      expect((await api.signIn(email, "wrong password", from("198.51.100.21"))).status).toBe(429);
      advance(1);
      expect((await api.signIn(email, "wrong password", from("198.51.100.22"))).status).toBe(400);
    }

    // And the phone is known now: the ceiling no longer holds it back.
    expect((await api.signIn(email, PASSWORD, from(phone))).status).toBe(200);
  });

  it("never says to wait past the end of the ceiling's window, when the count starts over", async () => {
    await project.configure({ "gatehouse.rateLimits.signInPerAccount": { limit: 3, windowSeconds: 10 } });
    const { email } = await owner();
    // t=0: three fill the ceiling, the fourth takes the first slow pass; the next pass opens at t=2, then t=6.
    expect(count(await attack(email, 4), 400)).toBe(4);
    advance(2);
    expect((await api.signIn(email, "wrong password", from("198.51.100.30"))).status).toBe(400);
    advance(4);
    expect((await api.signIn(email, "wrong password", from("198.51.100.31"))).status).toBe(400);
    // The next pass would be at t=14, but the window ends at t=10: that is when a retry succeeds.
    const held = await api.signIn(email, PASSWORD, from("198.51.100.32"));
    expect(held.status).toBe(429);
    expect(retryAfter(held)).toBe(4);
    advance(4);
    expect((await api.signIn(email, PASSWORD, from("198.51.100.32"))).status).toBe(200);
  });

  it("counts a live session's address as known, for sign-ins that did not use the password", async () => {
    await lowerCeiling();
    const email = uniqueEmail("otp-user");
    const { user } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      passwordHash: await hashPassword(PASSWORD),
    });
    const office = "192.0.2.77";
    await server.deps.db.update(sessions).set({ lastUsedIp: office }).where(eq(sessions.userId, user.id));
    await attack(email, SMALL_CEILING + 1);
    expect((await api.signIn(email, PASSWORD, from("203.0.113.6"))).status).toBe(429);
    expect((await api.signIn(email, PASSWORD, from(office))).status).toBe(200);

    // Signed out everywhere: the office stays known, since the password sign-in from it was recorded.
    await server.deps.db.delete(sessions).where(eq(sessions.userId, user.id));
    expect((await api.signIn(email, PASSWORD, from(office))).status).toBe(200);
    expect((await api.signIn(email, PASSWORD, from("203.0.113.7"))).status).toBe(429);
  });

  it("remembers an address where any kind of sign-in finished (here an email code), after its session ended", async () => {
    await lowerCeiling();
    await project.configure({ "auth.otp.allowSignIn": true });
    // Email codes sign in to verified addresses only.
    const email = uniqueEmail("cafe-owner");
    const { user } = await createSignedInUser(server, project.id, {
      primaryEmail: email,
      primaryEmailVerified: true,
      passwordHash: await hashPassword(PASSWORD),
    });
    const cafe = "192.0.2.88";
    const sent = await server.request("/api/v1/auth/otp/send-sign-in-code", {
      method: "POST",
      headers: project.headers("client", from(cafe)),
      body: { email, callback_url: "http://localhost:3000/handler/magic-link-callback" },
    });
    expect(sent.status, sent.text).toBe(200);
    const code = codeFromEmail((await latestEmailTo(server, project.id, email)).text);
    const signedIn = await server.request("/api/v1/auth/otp/sign-in", {
      method: "POST",
      headers: project.headers("client", from(cafe)),
      body: { code },
    });
    expect(signedIn.status, signedIn.text).toBe(200);
    await server.deps.db.delete(sessions).where(eq(sessions.userId, user.id));

    await attack(email, SMALL_CEILING + 1);
    expect((await api.signIn(email, PASSWORD, from("203.0.113.8"))).status).toBe(429);
    expect((await api.signIn(email, PASSWORD, from(cafe))).status).toBe(200);
  });

  it("writes a known address at most once a day, and keeps it known past the ceiling meanwhile", async () => {
    await lowerCeiling();
    const { email, user } = await owner();
    const recordedAt = async () => {
      const rows = await server.deps.db
        .select({ at: knownSignInAddresses.lastSignInAt })
        .from(knownSignInAddresses)
        .where(and(eq(knownSignInAddresses.userId, user.id), eq(knownSignInAddresses.address, HOME)));
      return rows.map((row) => row.at.getTime());
    };
    expect((await api.signIn(email, PASSWORD, from(HOME))).status).toBe(200);
    const first = await recordedAt();
    expect(first).toHaveLength(1);

    advance(23 * 3600);
    expect((await api.signIn(email, PASSWORD, from(HOME))).status).toBe(200);
    expect(await recordedAt()).toEqual(first);
    await server.deps.db.delete(sessions).where(eq(sessions.userId, user.id));
    await attack(email, SMALL_CEILING + 1);
    expect((await api.signIn(email, PASSWORD, from(HOME))).status).toBe(200);
    expect(await recordedAt()).toEqual(first);

    advance(2 * 3600);
    expect((await api.signIn(email, PASSWORD, from(HOME))).status).toBe(200);
    expect((await recordedAt())[0]).toBeGreaterThanOrEqual(now - 1000);
  });

  it("still limits each address, known or not, to 10 attempts per account in 5 minutes", async () => {
    const { email } = await owner();
    expect((await api.signIn(email, PASSWORD, from(HOME))).status).toBe(200);
    const answers = await Promise.all(
      Array.from({ length: 12 }, () => api.signIn(email, "wrong password", from(HOME))),
    );
    // 10 per window, and the successful sign-in above was one of them.
    expect(count(answers, 400)).toBe(9);
    expect(count(answers, 429)).toBe(3);
  });

  it("sends nothing for an email without an account, and slows it down the same way", async () => {
    await lowerCeiling();
    const email = uniqueEmail("nobody");
    const attempts = await attack(email, SMALL_CEILING + 3);
    expect(count(attempts, 400)).toBe(SMALL_CEILING + 1);
    expect(count(attempts, 429)).toBe(2);
    expect(await emailsTo(server, project.id, email)).toHaveLength(0);
  });
});

describe("a password sign-in's statements", () => {
  /** What a sign-in sends, the now-and-then sweeps of ended counters and forgotten addresses aside. */
  const statementsOf = async (email: string, password: string, ip: string) => {
    const { result, statements } = await statementsSentBy(() => api.signIn(email, password, from(ip)));
    return { status: result.status, statements: statements.filter((text) => !text.startsWith("delete")) };
  };
  const writesSessionAndAddress = /insert into "known_sign_in_addresses"[\s\S]*insert into "sessions"/;

  it("reads the owner with the address, and writes the session with the address, one statement each", async () => {
    const { email, user } = await owner();
    // The project's first request reads it into the cache; a running server has it there.
    await api.signIn(uniqueEmail("warm-up"), PASSWORD, from("203.0.113.99"));
    // A new address: the owner with the address, the two counters of every attempt, the ceiling's (a new address
    // counts towards it), then after the hash the session and the address in one statement.
    const fresh = await statementsOf(email, PASSWORD, HOME);
    expect(fresh.status).toBe(200);
    expect(fresh.statements, fresh.statements.join("\n")).toHaveLength(4);
    expect(fresh.statements[3]).toMatch(writesSessionAndAddress);
    const recorded = await server.deps.db
      .select()
      .from(knownSignInAddresses)
      .where(and(eq(knownSignInAddresses.userId, user.id), eq(knownSignInAddresses.address, HOME)));
    expect(recorded).toHaveLength(1);

    // Known since a moment ago: no ceiling to count, and the session's statement writes no address.
    const known = await statementsOf(email, PASSWORD, HOME);
    expect(known.status).toBe(200);
    expect(known.statements).toHaveLength(3);
    // A wrong password stops at the hash: the same reads and counters, no write after it.
    const wrong = await statementsOf(email, "wrong password", HOME);
    expect(wrong.status).toBe(400);
    expect(wrong.statements).toHaveLength(2);
  });
});
