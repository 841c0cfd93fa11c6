import { knownError } from "@gatehouse/shared";
import type { RenderedConfig } from "../../config/index.ts";
import { withCode } from "../../config/trusted-urls.ts";
import { hashPassword } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { checkSignUpRules, signUpUserFields } from "../sign-up-rules/apply.ts";
import type { UserRow } from "../users/schema.ts";
import { createUser, findUserByAuthEmail } from "../users/service.ts";
import { upgradeAnonymousUser } from "../users/upgrade.ts";
import { createVerificationCode } from "../verification-codes/service.ts";

function emailTaken(email: string, wouldWorkIfVerified: boolean) {
  return knownError("USER_EMAIL_ALREADY_EXISTS", {
    email,
    would_work_if_email_was_verified: wouldWorkIfVerified,
  });
}

/**
 * Creates the account of a password sign-up, or, when the caller is signed in as an anonymous user, turns that user
 * into a real one in place (same id, so whatever the app stored for them is kept). The email and the sign-up rules
 * are checked before the password is hashed, so a taken email or a rejected sign-up costs no hashing; the unique
 * index still settles a race between two sign-ups.
 */
export async function createPasswordAccount(
  deps: Pick<AppDeps, "db" | "hooks" | "env" | "activity">,
  input: {
    projectId: string;
    config: RenderedConfig;
    email: string;
    password: string;
    anonymousUser: UserRow | null;
    ip: string | null;
  },
): Promise<UserRow> {
  const { db, hooks } = deps;
  const email = normalizeEmail(input.email);
  const existing = await findUserByAuthEmail(db, input.projectId, email);
  // False even for an unverified address, as on the reference platform: verifying it would not make a second
  // password account possible (only an email-code sign-in answers true, auth-otp/service.ts).
  if (existing) throw emailTaken(email, false);
  const verdict = checkSignUpRules(deps, {
    projectId: input.projectId,
    config: input.config,
    email,
    authMethod: "password",
    ip: input.ip,
    anonymousUser: input.anonymousUser,
  });
  const passwordHash = await hashPassword(input.password);

  if (!input.anonymousUser) {
    return createUser(
      db,
      input.projectId,
      input.config,
      {
        primaryEmail: email,
        primaryEmailVerified: false,
        primaryEmailAuthEnabled: true,
        passwordHash,
        ...signUpUserFields(verdict),
      },
      hooks,
    );
  }
  const anonymousUserId = input.anonymousUser.id;
  try {
    return await db.transaction((tx) =>
      upgradeAnonymousUser(tx as Database, {
        projectId: input.projectId,
        userId: anonymousUserId,
        config: input.config,
        email,
        emailVerified: false,
        passwordHash,
        signUpRules: verdict,
      }),
    );
  } catch (error) {
    // Another account took the address for sign-in between our check and the upgrade.
    if (isUniqueViolation(error)) throw emailTaken(email, false);
    throw error;
  }
}

/**
 * Emails a "verify your email" link. The contact-channel verification endpoint consumes codes of this purpose with
 * exactly this data shape.
 */
export async function sendVerificationEmail(
  deps: AppDeps,
  project: Pick<ProjectRow, "id" | "displayName">,
  input: { userId: string; email: string; callbackUrl: string },
): Promise<void> {
  const { code } = await createVerificationCode(deps.db, {
    projectId: project.id,
    purpose: "email_verification",
    data: { user_id: input.userId, email: input.email },
  });
  await sendBuiltInEmail(deps, project, {
    kind: "email_verification",
    to: input.email,
    userId: input.userId,
    variables: { link: withCode(input.callbackUrl, code) },
  });
}
