import type { WireUser } from "@gatehouse/shared";
import { isKnownError, KnownError } from "@gatehouse/shared";
import type { AsyncCache } from "../cache/async-cache.ts";
import { type Watchable, watchMovingKey } from "../cache/watch.ts";
import type { Session } from "../session/session.ts";
import type { AppContext } from "./context.ts";
import type { TokenStoreInit } from "./options.ts";
import { withReturnTo } from "./redirect.ts";
import { signUpAnonymously } from "./sign-in.ts";

export type GetUserOptions = {
  /**
   * What to do without a (non-anonymous) user: `return-null` (default), `throw`, `redirect` to sign-in, or
   * `anonymous`: sign up an anonymous user if there is none, and count anonymous users as signed in.
   */
  or?: "return-null" | "throw" | "redirect" | "anonymous";
  /** Count restricted users (e.g. email not verified) as signed in; false by default. */
  includeRestricted?: boolean;
  /** Tokens for this call (a request, `{accessToken, refreshToken}`), instead of the app's store. */
  tokenStore?: TokenStoreInit;
};

type UserLike = { isAnonymous: boolean; isRestricted: boolean };

/** The cache key of a session's user: the session and the token that names the user. */
function sessionKey(session: Session): [Session, string] {
  const { accessToken, refreshToken } = session.peekTokens();
  return [session, refreshToken ?? accessToken ?? ""];
}

/** Whether `user` counts as signed in for these options (SPEC.md §4: anonymous users count as signed out). */
function counts(user: UserLike | null, options: GetUserOptions): boolean {
  if (user === null) return false;
  if (options.or === "anonymous") return true;
  if (user.isAnonymous) return false;
  return options.includeRestricted === true || !user.isRestricted;
}

/**
 * Reads of the signed-in user, cached per session and token so that a UI and the calls it makes share one fetch.
 * `build` turns `GET /users/me` into the app's user object (client or server flavour).
 */
export class UserReader<U extends UserLike> {
  private readonly cache: AsyncCache<[Session, string], U | null>;

  constructor(
    private readonly ctx: AppContext,
    /** Reads the client or the server read of the user, as the app's access type gets. */
    private readonly build: (session: Session, json: WireUser) => U,
    private readonly redirectToSignIn: (url: string) => Promise<void>,
  ) {
    this.cache = ctx.cache("currentUser", (session: Session, _token: string) => this.fetch(session));
  }

  private async fetch(session: Session): Promise<U | null> {
    if (!session.hasTokens()) return null;
    try {
      const json = await this.ctx.call<WireUser>("/users/me", { session });
      return this.build(session, json);
    } catch (error) {
      // The token was for a user that is gone, or the session ended while we asked.
      if (
        isKnownError(error, "CANNOT_GET_OWN_USER_WITHOUT_USER") ||
        isKnownError(error, "USER_AUTHENTICATION_REQUIRED")
      ) {
        return null;
      }
      throw error;
    }
  }

  /** The raw current user of a session (anonymous and restricted ones included), or null. */
  current(session: Session): Promise<U | null> {
    if (!session.hasTokens()) return Promise.resolve(null);
    return this.cache.get(sessionKey(session));
  }

  async getUser(options: GetUserOptions = {}): Promise<U | null> {
    if (options.or === "anonymous" && options.includeRestricted === false) {
      throw new Error(
        'includeRestricted cannot be false with or: "anonymous": anonymous users are restricted.',
      );
    }
    const session = this.ctx.session(options.tokenStore);
    let user = await this.current(session);
    if (counts(user, options)) return user;
    switch (options.or) {
      case "anonymous":
        if (options.tokenStore !== undefined && session !== this.ctx.appSession()) {
          throw new Error(
            'getUser({or: "anonymous"}) signs up into the app\'s own token store; drop tokenStore.',
          );
        }
        await signUpAnonymously(this.ctx);
        user = await this.current(session);
        if (user === null) throw new Error("The anonymous sign-up did not produce a user.");
        return user;
      case "redirect":
        await this.redirectToSignIn(withReturnTo(this.ctx.urls.signIn));
        throw notSignedIn("redirect");
      case "throw":
        throw notSignedIn("throw");
      default:
        return null;
    }
  }

  /** The signed-in user (per `getUser`'s rules, without signing up or redirecting) for a UI to follow. */
  watch(
    options: Pick<GetUserOptions, "includeRestricted" | "tokenStore"> & { includeAnonymous?: boolean } = {},
  ) {
    const session = this.ctx.session(options.tokenStore);
    const filter = {
      includeRestricted: options.includeRestricted,
      ...(options.includeAnonymous ? { or: "anonymous" as const } : {}),
    };
    const watchable: Watchable<U | null> = watchMovingKey(
      this.cache,
      () => sessionKey(session),
      (listener) => session.store.subscribe(listener),
      (user) => (counts(user, filter) ? user : null),
    );
    return watchable;
  }

  /** After writes: the next read fetches again. */
  invalidate(): void {
    this.cache.invalidate();
  }
}

function notSignedIn(or: string): KnownError {
  return new KnownError(
    "USER_AUTHENTICATION_REQUIRED",
    undefined,
    `User is not signed in but getUser was called with { or: '${or}' }.`,
  );
}
