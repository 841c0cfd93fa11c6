/**
 * Who an OAuth callback signs in (PROTOCOL.md §4.7 step 3): the user the provider account is linked to, or a user
 * it gets linked to (by `type=link`, or by a verified email under `link_method`), an upgraded anonymous user, or a
 * new user. Runs in one transaction with the storing of the provider tokens.
 */
import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { checkSignUpRules, type SignUpRulesVerdict, signUpUserFields } from "../sign-up-rules/apply.ts";
import type { UserRow } from "../users/schema.ts";
import { createUser, findUser, findUserByAuthEmail } from "../users/service.ts";
import { upgradeAnonymousUser } from "../users/upgrade.ts";
import {
  findAccountByProviderAccount,
  insertAccount,
  storeProviderTokens,
  updateAccountEmail,
} from "./accounts.ts";
import type { ProviderTokens } from "./client.ts";
import type { ProviderProfile } from "./providers.ts";
import type { OAuthAccountRow, OAuthOuterStateRow } from "./schema.ts";

export type CallbackSignIn = {
  projectId: string;
  config: RenderedConfig;
  /** The browser flow's stored request, or what the native Apple sign-in stands in with. */
  flow: Pick<OAuthOuterStateRow, "providerId" | "providerConfigId" | "userId" | "type">;
  profile: ProviderProfile;
  /** Null for a sign-in that brings no provider tokens (a native app's Apple identity token). */
  tokens: ProviderTokens | null;
  /** The profile comes from the development provider (see `providerEmailTrust`). */
  fromDevelopmentProvider: boolean;
  /** The browser's IP at the callback, for the sign-up rules' country. */
  ip?: string | null;
};

/**
 * What the provider's email is allowed to prove. The development provider signs in whoever types an address, so
 * its address proves nothing: it is never verified, never signs in, and never leads to an existing account (no
 * sign-in, merge or link by email), or anyone could type a victim's address and become the victim. Its users are
 * only ever found by the account ids it issued itself. Any other provider is believed when it verified the address.
 */
function providerEmailTrust(input: CallbackSignIn): { verified: boolean; matchesExistingUsers: boolean } {
  if (input.fromDevelopmentProvider) return { verified: false, matchesExistingUsers: false };
  return { verified: input.profile.emailVerified, matchesExistingUsers: true };
}

function alreadyConnected() {
  return knownError("OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER");
}

export async function signInWithProviderAccount(
  deps: AppDeps,
  input: CallbackSignIn,
): Promise<{ user: UserRow; isNewUser: boolean }> {
  try {
    return await deps.db.transaction(async (raw) => {
      const tx = raw as unknown as Database;
      const { user, isNewUser, account } = await resolveUser(tx, input, deps);
      if (input.tokens) await storeProviderTokens(tx, deps.env, account, input.tokens);
      return { user, isNewUser };
    });
  } catch (error) {
    // A concurrent sign-in linked the same provider account, or took the email for sign-in, first.
    if (!isUniqueViolation(error)) throw error;
    const email = input.profile.email ? normalizeEmail(input.profile.email) : null;
    if (email && !violatedConstraint(error)?.startsWith("oauth_accounts")) {
      throw knownError("USER_EMAIL_ALREADY_EXISTS", { email, would_work_if_email_was_verified: false });
    }
    throw alreadyConnected();
  }
}

/** The constraint a database error names (node-postgres and PGlite both report it), possibly wrapped by Drizzle. */
function violatedConstraint(error: unknown): string | undefined {
  for (let current: unknown = error, depth = 0; current && depth < 5; depth++) {
    const constraint = (current as { constraint?: unknown }).constraint;
    if (typeof constraint === "string") return constraint;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

async function resolveUser(
  tx: Database,
  input: CallbackSignIn,
  deps: Pick<AppDeps, "hooks" | "env" | "activity">,
): Promise<{ user: UserRow; isNewUser: boolean; account: OAuthAccountRow }> {
  const { projectId, flow, profile } = input;
  const email = profile.email ? normalizeEmail(profile.email) : null;
  const trust = providerEmailTrust(input);
  const existing = await findAccountByProviderAccount(
    tx,
    projectId,
    flow.providerConfigId,
    profile.accountId,
  );
  const tokenUser = flow.userId ? await findUser(tx, projectId, flow.userId) : null;
  if (flow.userId && !tokenUser) throw knownError("USER_NOT_FOUND");
  // Linking always names its user (the authorize step required the token).
  const linkTarget = flow.type === "link" ? tokenUser : null;
  if (flow.type === "link" && !linkTarget) throw knownError("USER_AUTHENTICATION_REQUIRED");

  if (existing) {
    if (linkTarget && existing.userId !== linkTarget.id) throw alreadyConnected();
    if (flow.type === "authenticate" && !existing.allowSignIn) {
      throw knownError(
        "OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER",
        undefined,
        "This OAuth account is connected to a user, but not enabled for signing in.",
      );
    }
    const user = await findUser(tx, projectId, existing.userId);
    if (!user) throw knownError("USER_NOT_FOUND");
    await updateAccountEmail(tx, existing, email);
    return { user, isNewUser: false, account: existing };
  }

  const link = (userId: string) =>
    insertAccount(tx, {
      projectId,
      userId,
      providerConfigId: flow.providerConfigId,
      providerAccountId: profile.accountId,
      email,
    });

  // An explicit link names the signed-in user, who chose this provider account: allowed for every provider.
  if (linkTarget && !linkTarget.isAnonymous) {
    return { user: linkTarget, isNewUser: false, account: await link(linkTarget.id) };
  }

  // A new provider account. Does its email already sign someone in?
  let emailSignsIn = trust.verified;
  const owner = email && trust.matchesExistingUsers ? await findUserByAuthEmail(tx, projectId, email) : null;
  if (owner && email) {
    const strategy = input.config.auth.oauth.accountMergeStrategy;
    if (strategy === "allow_duplicates") {
      emailSignsIn = false;
    } else if (strategy === "link_method" && trust.verified && owner.channel.isVerified) {
      // Both sides proved the address, so it is the same person.
      return { user: owner.user, isNewUser: false, account: await link(owner.user.id) };
    } else {
      throw knownError("CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE", {
        type: "email",
        contact_channel_value: email,
        // Under link_method, only the existing account's unverified address stood in the way.
        would_work_if_email_was_verified:
          strategy === "link_method" && trust.verified && !owner.channel.isVerified,
      });
    }
  }

  if (!input.config.auth.allowSignUp) throw knownError("SIGN_UP_NOT_ENABLED");
  const anonymousUser = tokenUser?.isAnonymous ? tokenUser : null;
  const verdict = checkSignUpRules(deps, {
    projectId,
    config: input.config,
    email,
    authMethod: "oauth",
    oauthProvider: input.config.auth.oauth.providers[flow.providerConfigId]?.type ?? flow.providerId,
    ip: input.ip ?? null,
    anonymousUser,
  });
  const newEmail = email ? { email, verified: trust.verified, usedForAuth: emailSignsIn } : null;
  const user = anonymousUser
    ? await upgradeAnonymous(tx, input, anonymousUser, newEmail, verdict)
    : await createUser(
        tx,
        projectId,
        input.config,
        {
          primaryEmail: email,
          primaryEmailVerified: trust.verified,
          primaryEmailAuthEnabled: emailSignsIn,
          displayName: profile.displayName,
          profileImageUrl: profile.profileImageUrl,
          ...signUpUserFields(verdict),
        },
        deps.hooks,
      );
  return { user, isNewUser: true, account: await link(user.id) };
}

/**
 * An anonymous user who signs in with a provider becomes a full account in place: same id, so what they did while
 * anonymous stays theirs, and they get what a sign-up gives (the personal team). The provider's name and picture
 * fill what the user has not set; an address that must not sign in is kept as a contact address only.
 */
function upgradeAnonymous(
  tx: Database,
  input: CallbackSignIn,
  anonymous: UserRow,
  email: { email: string; verified: boolean; usedForAuth: boolean } | null,
  verdict: SignUpRulesVerdict,
): Promise<UserRow> {
  return upgradeAnonymousUser(tx, {
    projectId: input.projectId,
    userId: anonymous.id,
    config: input.config,
    email: email?.email ?? null,
    emailVerified: email?.verified ?? false,
    emailUsedForAuth: email?.usedForAuth ?? false,
    profile: { displayName: input.profile.displayName, profileImageUrl: input.profile.profileImageUrl },
    signUpRules: verdict,
  });
}
