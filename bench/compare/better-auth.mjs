// Better Auth's side of bench/compare.mjs: its server process (better-auth-server.mjs) and the same paths as a
// browser app calls them, with the session in a cookie and an Origin header on every POST, as browsers send.
import { randomBytes } from "node:crypto";
import { fileURLToPath } from "node:url";
import { sendOk } from "./load.mjs";
import { startServer } from "./processes.mjs";

const PASSWORD = "correct horse battery staple";
const serverScript = fileURLToPath(new URL("better-auth-server.mjs", import.meta.url));

export function betterAuthEnv({ port, databaseUrl }) {
  return {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    DATABASE_URL: databaseUrl,
    BETTER_AUTH_SECRET: randomBytes(32).toString("base64url"),
  };
}

export function startBetterAuth(root, env) {
  return startServer({ cwd: root, env, port: Number(env.PORT), args: [serverScript] });
}

/** The `name=value` pairs of a response's Set-Cookie headers, as a Cookie header. */
function cookieHeader(setCookie = []) {
  return setCookie.map((cookie) => cookie.split(";")[0]).join("; ");
}

export function betterAuthPaths(baseUrl) {
  // Behind a proxy, as Better Auth expects in production: without a client address its rate limiter puts every
  // caller in one bucket and warns.
  const post = { "content-type": "application/json", origin: baseUrl, "x-forwarded-for": "127.0.0.1" };
  const accounts = [];
  const cookies = [];
  let signUps = 0;
  let signIns = 0;
  let reads = 0;
  return {
    async signUp(agent) {
      const email = `user-${signUps++}@example.com`;
      await sendOk(agent, baseUrl, {
        method: "POST",
        path: "/api/auth/sign-up/email",
        headers: post,
        body: JSON.stringify({ email, password: PASSWORD, name: email }),
      });
      accounts.push(email);
    },
    async signIn(agent) {
      const email = accounts[signIns++ % accounts.length];
      const answer = await sendOk(agent, baseUrl, {
        method: "POST",
        path: "/api/auth/sign-in/email",
        headers: post,
        body: JSON.stringify({ email, password: PASSWORD }),
      });
      if (cookies.length < 512) cookies.push(cookieHeader(answer.headers["set-cookie"]));
    },
    async sessionRead(agent) {
      const { body } = await sendOk(agent, baseUrl, {
        path: "/api/auth/get-session",
        headers: { cookie: cookies[reads++ % cookies.length], "x-forwarded-for": "127.0.0.1" },
      });
      if (!body?.session) throw new Error("get-session found no session");
    },
    // Better Auth has no refresh grant: its session is the cookie, extended by get-session itself once a day.
    refresh: null,
  };
}
