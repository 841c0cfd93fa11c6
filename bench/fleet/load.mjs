// The fleet's mixed load: a fixed number of keep-alive clients, each sending one request after another for a fixed
// time, every request to the next instance in turn (round robin, as a load balancer without affinity would) and
// to a project and user picked at random among all of them. node:http, not fetch, for the reason compare/load.mjs
// gives: the generator shares the two cores with what it measures.
import http from "node:http";
import { performance } from "node:perf_hooks";
import { send } from "../compare/load.mjs";
import { PASSWORD, SEARCH_TERMS, seededUser } from "./seed.mjs";

/** Relative weights of the routes in the mix: reads dominate, as in an auth service's real traffic. */
export const MIX = {
  "users/me": 30,
  refresh: 20,
  "sign-in": 4,
  "users list": 10,
  "users search": 8,
  "user update": 12,
  "team create": 6,
  "send-email": 10,
};

/** Sessions kept for refresh and /users/me; sign-ins during the load replace them at random. */
const SESSION_POOL = 1_000;

export function createFleetClient({ projectIds, userCount, keys }) {
  const sessions = [];
  const random = (n) => Math.floor(Math.random() * n);
  const randomUser = () => seededUser(random(userCount), projectIds);
  const clientHeaders = (projectId) => ({
    "x-stack-project-id": projectId,
    "x-stack-access-type": "client",
    "x-stack-publishable-client-key": keys.publishableClientKey,
  });
  const serverHeaders = (projectId) => ({
    "x-stack-project-id": projectId,
    "x-stack-access-type": "server",
    "x-stack-secret-server-key": keys.secretServerKey,
  });
  const json = (headers) => ({ ...headers, "content-type": "application/json" });
  /** A session no other client is using right now (a refresh and a read of one session may not overlap). */
  const checkout = () => {
    for (let tries = 0; tries < 8; tries++) {
      const session = sessions[random(sessions.length)];
      if (session && !session.busy) {
        session.busy = true;
        return session;
      }
    }
    return null;
  };

  async function signIn(agent, baseUrl) {
    const user = randomUser();
    const answer = await send(agent, baseUrl, {
      method: "POST",
      path: "/api/v1/auth/password/sign-in",
      headers: json(clientHeaders(user.projectId)),
      body: JSON.stringify({ email: user.email, password: PASSWORD }),
    });
    if (answer.status === 200) {
      const body = JSON.parse(answer.text);
      const session = {
        projectId: user.projectId,
        userId: body.user_id,
        accessToken: body.access_token,
        refreshToken: body.refresh_token,
        busy: false,
      };
      if (sessions.length < SESSION_POOL) sessions.push(session);
      else {
        const slot = random(sessions.length);
        if (!sessions[slot].busy) sessions[slot] = session;
      }
    }
    return answer;
  }

  const routes = {
    "sign-in": signIn,
    async "users/me"(agent, baseUrl) {
      const session = checkout();
      if (!session) return signIn(agent, baseUrl);
      try {
        return await send(agent, baseUrl, {
          path: "/api/v1/users/me",
          headers: { ...clientHeaders(session.projectId), "x-stack-access-token": session.accessToken },
        });
      } finally {
        session.busy = false;
      }
    },
    // The refresh grant as the SDK sends it: form-encoded to the OAuth token endpoint, no x-stack headers.
    async refresh(agent, baseUrl) {
      const session = checkout();
      if (!session) return signIn(agent, baseUrl);
      try {
        const answer = await send(agent, baseUrl, {
          method: "POST",
          path: "/api/v1/auth/oauth/token",
          headers: {
            "content-type": "application/x-www-form-urlencoded;charset=UTF-8",
            accept: "application/json",
          },
          body: new URLSearchParams({
            refresh_token: session.refreshToken,
            grant_type: "refresh_token",
            client_id: session.projectId,
            client_secret: keys.publishableClientKey,
          }).toString(),
        });
        if (answer.status === 200) {
          const body = JSON.parse(answer.text);
          session.accessToken = body.access_token;
          if (body.refresh_token) session.refreshToken = body.refresh_token;
        }
        return answer;
      } finally {
        session.busy = false;
      }
    },
    "users list"(agent, baseUrl) {
      const projectId = projectIds[random(projectIds.length)];
      return send(agent, baseUrl, {
        path: "/api/v1/users?limit=20&order_by=signed_up_at&desc=true",
        headers: serverHeaders(projectId),
      });
    },
    "users search"(agent, baseUrl) {
      const projectId = projectIds[random(projectIds.length)];
      const query = SEARCH_TERMS[random(SEARCH_TERMS.length)];
      return send(agent, baseUrl, {
        path: `/api/v1/users?limit=20&query=${encodeURIComponent(query)}`,
        headers: serverHeaders(projectId),
      });
    },
    "user update"(agent, baseUrl) {
      const user = randomUser();
      return send(agent, baseUrl, {
        method: "PATCH",
        path: `/api/v1/users/${user.id}`,
        headers: json(serverHeaders(user.projectId)),
        body: JSON.stringify({ server_metadata: { plan: random(4), touched_at: Date.now() } }),
      });
    },
    "team create"(agent, baseUrl) {
      const user = randomUser();
      return send(agent, baseUrl, {
        method: "POST",
        path: "/api/v1/teams",
        headers: json(serverHeaders(user.projectId)),
        body: JSON.stringify({ display_name: `Fleet team ${random(1e9)}`, creator_user_id: user.id }),
      });
    },
    "send-email"(agent, baseUrl) {
      const user = randomUser();
      return send(agent, baseUrl, {
        method: "POST",
        path: "/api/v1/emails/send-email",
        headers: json(serverHeaders(user.projectId)),
        body: JSON.stringify({
          user_ids: [user.id],
          subject: "Your weekly summary",
          html: "<p>Here is what happened this week.</p>",
        }),
      });
    },
  };

  return { routes, sessions, signIn };
}

/** Picks routes by MIX's weights. */
function picker(mix) {
  const entries = Object.entries(mix);
  const total = entries.reduce((sum, [, weight]) => sum + weight, 0);
  return () => {
    let roll = Math.random() * total;
    for (const [name, weight] of entries) {
      roll -= weight;
      if (roll < 0) return name;
    }
    return entries[0][0];
  };
}

/**
 * `concurrency` clients for `seconds` over `targets` (base URLs). Per route: latencies of the 2xx answers,
 * counts of everything else by status (a thrown request counts as status 0), the first such answer to show.
 * Before the measured part, `warmupSeconds` of the same load whose figures are dropped; `onMeasure` is awaited
 * between the two, so that what is sampled alongside covers the measured part only.
 */
export async function runMix({ routes, targets, seconds, warmupSeconds, concurrency, mix = MIX, onMeasure }) {
  const agents = targets.map(() => new http.Agent({ keepAlive: true, maxSockets: concurrency }));
  let turn = 0;
  const pick = picker(mix);
  const once = async (stats, deadline) => {
    while (performance.now() < deadline) {
      const name = pick();
      const target = turn++ % targets.length;
      const started = performance.now();
      let status = 0;
      let text = "";
      try {
        ({ status, text } = await routes[name](agents[target], targets[target]));
      } catch (error) {
        text = error.message;
      }
      if (!stats) continue;
      stats[name] ??= { latencies: [], failures: new Map(), firstFailure: null };
      const route = stats[name];
      if (status >= 200 && status < 300) route.latencies.push(performance.now() - started);
      else {
        route.failures.set(status, (route.failures.get(status) ?? 0) + 1);
        route.firstFailure ??= `${status} ${text.replace(/\s+/g, " ").slice(0, 300)}`;
      }
    }
  };
  try {
    if (warmupSeconds > 0) {
      const deadline = performance.now() + warmupSeconds * 1000;
      await Promise.all(Array.from({ length: concurrency }, () => once(null, deadline)));
    }
    await onMeasure?.();
    const stats = {};
    const started = performance.now();
    const deadline = started + seconds * 1000;
    await Promise.all(Array.from({ length: concurrency }, () => once(stats, deadline)));
    // Requests in flight at the deadline end after it: their time is counted with them.
    return { stats, elapsed: (performance.now() - started) / 1000 };
  } finally {
    for (const agent of agents) agent.destroy();
  }
}

/** p-th percentile (0…100) of unsorted numbers, nearest rank. */
export function percentile(values, p) {
  if (values.length === 0) return Number.NaN;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}
