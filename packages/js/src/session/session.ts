import { InvalidServerResponseError } from "../http/errors.ts";
import { decodeAccessToken, millisUntilExpiry } from "./jwt.ts";
import { NO_TOKENS, type StoredTokens, sameTokens, type TokenStore } from "./token-store.ts";

/** getTokens hands out access tokens with at least this much life left (SPEC.md §9). */
export const DEFAULT_MIN_VALIDITY_MS = 20_000;
/** Asking for more is refused: tokens may live as little as 60 s, so a fresh one could never qualify. */
export const MAX_MIN_VALIDITY_MS = 60_000;

/** Trades a refresh token for a new access token; null when the refresh token is no good (signed out). */
export type Refresher = (refreshToken: string) => Promise<string | null>;

export type SessionTokens = { accessToken: string | null; refreshToken: string | null };

/**
 * One signed-in (or signed-out) user's tokens, kept in a token store. It refreshes the access token when it is
 * missing, unreadable, expired or about to expire, shares one refresh among concurrent callers, and clears both
 * tokens when the server says the refresh token is gone. It satisfies the request layer's `TokenSource`.
 */
export class Session {
  private readonly refreshes = new Map<string, Promise<string | null>>();

  constructor(
    readonly store: TokenStore,
    private readonly refresher: Refresher,
    private readonly now: () => number,
  ) {}

  /** The tokens as stored, without refreshing. */
  peekTokens(): StoredTokens {
    return this.store.read();
  }

  /** Whether a refresh token (or at least an access token) is there; says nothing about its validity. */
  hasTokens(): boolean {
    const { accessToken, refreshToken } = this.store.read();
    return accessToken !== null || refreshToken !== null;
  }

  /**
   * Tokens with an access token valid for at least `minValidityMs` more, refreshing if needed. Both are null when
   * signed out (including when the refresh token turned out to be revoked or expired).
   */
  async getTokens(minValidityMs: number = DEFAULT_MIN_VALIDITY_MS): Promise<SessionTokens> {
    if (!(minValidityMs < MAX_MIN_VALIDITY_MS)) {
      throw new RangeError(
        `The requested access token validity must be under ${MAX_MIN_VALIDITY_MS} ms, got ${minValidityMs} ms.`,
      );
    }
    const stored = this.store.read();
    if (stored.accessToken !== null && this.isUsable(stored.accessToken, minValidityMs)) return stored;
    if (stored.refreshToken === null) {
      // An access token alone cannot be renewed; once it is too old it is dropped.
      if (stored.accessToken !== null) this.store.write(NO_TOKENS);
      return NO_TOKENS;
    }
    const refreshToken = stored.refreshToken;
    const accessToken = await this.refresh(refreshToken);
    if (accessToken === null) return NO_TOKENS;
    if (!this.isUsable(accessToken, minValidityMs)) {
      throw new InvalidServerResponseError(
        `The server issued an access token with less than ${minValidityMs} ms of validity, or with an invalid claim set; its access token lifetime must be longer.`,
      );
    }
    return { accessToken, refreshToken };
  }

  /** The server rejected this access token: forget it, so the next getTokens refreshes. */
  markAccessTokenExpired(accessToken: string): void {
    const stored = this.store.read();
    if (stored.accessToken === accessToken) {
      this.store.write({ accessToken: null, refreshToken: stored.refreshToken });
    }
  }

  /** After a sign-in: the new pair replaces whatever was there. */
  setTokens(tokens: StoredTokens): void {
    this.store.write(tokens);
  }

  /** Signed out: both tokens go. */
  clear(): void {
    if (!sameTokens(this.store.read(), NO_TOKENS)) this.store.write(NO_TOKENS);
  }

  /** The claims of the stored access token, decoded without refreshing (null when there is none). */
  peekClaims() {
    const { accessToken } = this.store.read();
    return accessToken === null ? null : decodeAccessToken(accessToken);
  }

  private isUsable(accessToken: string, minValidityMs: number): boolean {
    const claims = decodeAccessToken(accessToken);
    return claims !== null && millisUntilExpiry(claims, this.now()) > minValidityMs;
  }

  /** One refresh per refresh token at a time; the result is written to the store if it still applies. */
  private refresh(refreshToken: string): Promise<string | null> {
    const pending = this.refreshes.get(refreshToken);
    if (pending) return pending;
    const promise = (async () => {
      try {
        const accessToken = await this.refresher(refreshToken);
        const current = this.store.read();
        // A sign-in or sign-out may have happened meanwhile; do not overwrite it.
        if (current.refreshToken === refreshToken) {
          this.store.write(accessToken === null ? NO_TOKENS : { accessToken, refreshToken });
        }
        return accessToken;
      } finally {
        this.refreshes.delete(refreshToken);
      }
    })();
    this.refreshes.set(refreshToken, promise);
    return promise;
  }
}
