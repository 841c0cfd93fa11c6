import { knownError } from "@gatehouse/shared";
import { and, eq } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import { hashPassword, randomUuid } from "../../crypto/index.ts";
import { isUniqueViolation } from "../../db/errors.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { StatusError } from "../../http/status-error.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { sendBuiltInEmail } from "../emails/built-in.ts";
import type { ProjectRow } from "../projects/schema.ts";
import { type UserRow, users } from "../users/schema.ts";
import { createUser, findUserByAuthEmail, normalizeEmail } from "../users/service.ts";
import { createVerificationCode } from "../verification-codes/service.ts";
import { linkWithCode } from "./policy.ts";

function emailTaken(email: string, wouldWorkIfVerified: boolean) {
  return knownError("USER_EMAIL_ALREADY_EXISTS", {
    email,
    would_work_if_email_was_verified: wouldWorkIfVerified,
  });
}

/**
 * Creates the account of a password sign-up, or, when the caller is signed in as an anonymous user, turns that user
 * into a real one in place (same id, so whatever the app stored for them is kept). The email is checked before the
 * password is hashed, so a taken email costs no hashing; the unique index still settles a race between two sign-ups.
 */
export async function createPasswordAccount(
  db: Database,
  input: {
    projectId: string;
    config: RenderedConfig;
    email: string;
    password: string;
    anonymousUser: UserRow | null;
  },
): Promise<UserRow> {
  const email = normalizeEmail(input.email);
  const existing = await findUserByAuthEmail(db, input.projectId, email);
  if (existing) throw emailTaken(email, !existing.channel.isVerified);
  const passwordHash = await hashPassword(input.password);

  if (!input.anonymousUser) {
    return createUser(db, input.projectId, input.config, {
      primaryEmail: email,
      primaryEmailVerified: false,
      primaryEmailAuthEnabled: true,
      passwordHash,
    });
  }
  return upgradeAnonymousUser(db, input.projectId, input.anonymousUser.id, email, passwordHash);
}

async function upgradeAnonymousUser(
  db: Database,
  projectId: string,
  userId: string,
  email: string,
  passwordHash: string,
): Promise<UserRow> {
  try {
    return await db.transaction(async (tx) => {
      // First, so that the row stays locked: of two parallel upgrades of one user, the second finds it upgraded.
      const [user] = await tx
        .update(users)
        .set({ passwordHash, isAnonymous: false })
        .where(and(eq(users.projectId, projectId), eq(users.id, userId), eq(users.isAnonymous, true)))
        .returning();
      if (!user)
        throw new StatusError(409, "This anonymous user has already been upgraded to a full account.");
      // The new email becomes the primary one; an anonymous user normally has no channel at all, but a server may
      // have given them one.
      await tx
        .update(contactChannels)
        .set({ isPrimary: false })
        .where(and(eq(contactChannels.projectId, projectId), eq(contactChannels.userId, userId)));
      const [sameValue] = await tx
        .update(contactChannels)
        .set({ isPrimary: true, usedForAuth: true })
        .where(
          and(
            eq(contactChannels.projectId, projectId),
            eq(contactChannels.userId, userId),
            eq(contactChannels.type, "email"),
            eq(contactChannels.value, email),
          ),
        )
        .returning({ id: contactChannels.id });
      if (!sameValue) {
        await tx.insert(contactChannels).values({
          projectId,
          id: randomUuid(),
          userId,
          type: "email",
          value: email,
          isVerified: false,
          isPrimary: true,
          usedForAuth: true,
        });
      }
      return user;
    });
  } catch (error) {
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
    variables: { link: linkWithCode(input.callbackUrl, code) },
  });
}
