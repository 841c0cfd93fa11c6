import { type AnyRoute, routeGroup } from "../../http/route.ts";
import { consumeRateLimit, rateLimitScope } from "../../rate-limit/limiter.ts";
import { RATE_LIMITS } from "../../rate-limit/rules.ts";
import { completeSignIn, signInTokensSchema } from "../sessions/sign-in.ts";
import { createUser } from "../users/service.ts";

const anyKey = routeGroup({ tags: ["Anonymous authentication"], access: ["client", "server", "admin"] });

export const anonymousRoutes: AnyRoute[] = [
  anyKey.post("/auth/anonymous/sign-up", {
    summary: "Create an anonymous user and sign them in",
    response: { body: signInTokensSchema },
    handler: async ({ deps, auth, request, clientIp }) => {
      // Deliberately not gated by `auth.allowSignUp` (PROTOCOL.md §4.4): an anonymous user is a guest, not an
      // account, and turning it into one goes through a sign-up that is gated. The per-IP limit is shared with
      // password sign-up, so that alternating the two does not double the allowance.
      await consumeRateLimit(rateLimitScope(deps, auth, clientIp), RATE_LIMITS.signUpPerIp, clientIp);
      const user = await createUser(deps.db, auth.project.id, auth.config, { isAnonymous: true }, deps.hooks);
      const result = await completeSignIn(deps, {
        projectId: auth.project.id,
        config: auth.config,
        user,
        isNewUser: true,
        ip: clientIp,
        userAgent: request.headers.get("user-agent"),
      });
      return {
        body: { access_token: result.access_token, refresh_token: result.refresh_token, user_id: user.id },
      };
    },
  }),
];
