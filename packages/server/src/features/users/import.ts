/**
 * Bulk user import (a Gatehouse extension used by `gatehouse users import`): a batch of bodies shaped like
 * `POST /users`, checked as a whole before anything is written, then created in one transaction. A batch is all or
 * nothing unless the caller asks to skip the invalid entries; `dry_run` checks without writing, so a client can
 * check a whole file batch by batch before importing any of it.
 */
import { and, eq, inArray } from "drizzle-orm";
import type { RenderedConfig } from "../../config/index.ts";
import type { Database } from "../../db/index.ts";
import type { AppDeps } from "../../deps.ts";
import { normalizeEmail } from "../../fields/email.ts";
import { contactChannels } from "../contact-channels/schema.ts";
import { createUserFromBody, newUserFromBody } from "./create.ts";
import { serverCreateBody, type UserCreateBody } from "./requests.ts";
import { createUsers } from "./service.ts";

export const IMPORT_BATCH_MAX = 1000;

export type ImportProblem = { index: number; message: string };
export type ImportResult = { user_ids: string[]; errors: ImportProblem[]; imported: number };

function describeIssues(issues: { path: PropertyKey[]; message: string }[]): string {
  return issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join(".")}: ${issue.message}` : issue.message))
    .join("; ");
}

/** The auth emails among `emails` that already sign someone in to the project. */
async function takenEmails(db: Database, projectId: string, emails: string[]): Promise<Set<string>> {
  if (emails.length === 0) return new Set();
  const rows = await db
    .select({ value: contactChannels.value })
    .from(contactChannels)
    .where(
      and(
        eq(contactChannels.projectId, projectId),
        eq(contactChannels.type, "email"),
        eq(contactChannels.usedForAuth, true),
        inArray(contactChannels.value, emails),
      ),
    );
  return new Set(rows.map((row) => row.value));
}

/** Checks every entry: the schema of `POST /users`, emails unique within the batch and in the project. */
async function checkBatch(deps: AppDeps, projectId: string, items: unknown[]) {
  const errors: ImportProblem[] = [];
  const valid: { index: number; body: UserCreateBody }[] = [];
  const seen = new Map<string, number>();
  for (const [index, item] of items.entries()) {
    const parsed = serverCreateBody.safeParse(item);
    if (!parsed.success) {
      errors.push({ index, message: describeIssues(parsed.error.issues) });
      continue;
    }
    const body = parsed.data;
    if (body.primary_email && body.primary_email_auth_enabled !== false) {
      const email = normalizeEmail(body.primary_email);
      const first = seen.get(email);
      if (first !== undefined) {
        errors.push({
          index,
          message: `primary_email ${email} is also used by entry ${first} of this batch`,
        });
        continue;
      }
      seen.set(email, index);
    }
    valid.push({ index, body });
  }
  const taken = await takenEmails(deps.db, projectId, [...seen.keys()]);
  const accepted = valid.filter(({ index, body }) => {
    const email = body.primary_email ? normalizeEmail(body.primary_email) : null;
    if (email && body.primary_email_auth_enabled !== false && taken.has(email)) {
      errors.push({ index, message: `primary_email ${email} already belongs to a user of this project` });
      return false;
    }
    return true;
  });
  errors.sort((a, b) => a.index - b.index);
  return { errors, accepted };
}

/**
 * Users that need nothing beyond their own rows: no OAuth accounts to attach, no team to select, and no plain
 * password to hash one by one (hashes, as exports carry them, are stored as they are).
 */
function isPlainUser(body: UserCreateBody): boolean {
  return (
    (body.oauth_providers ?? []).length === 0 &&
    body.selected_team_id === undefined &&
    (body.password ?? null) === null
  );
}

export async function importUsers(
  deps: AppDeps,
  projectId: string,
  config: RenderedConfig,
  items: unknown[],
  options: { dryRun: boolean; skipInvalid: boolean },
): Promise<ImportResult> {
  const { errors, accepted } = await checkBatch(deps, projectId, items);
  if (options.dryRun || (errors.length > 0 && !options.skipInvalid)) {
    return { user_ids: [], errors, imported: 0 };
  }
  const bodies = accepted.map(({ body }) => body);
  // Imported users are server-created users: no personal team (createUserFromBody), whatever the config says.
  if (bodies.every(isPlainUser)) {
    // The usual export: users with an email and maybe a hash, written a table at a time (createUsers).
    const inputs = await Promise.all(bodies.map((body) => newUserFromBody(deps, body)));
    const created = await createUsers(deps.db, projectId, config, inputs, deps.hooks);
    return { user_ids: created.map((user) => user.id), errors, imported: created.length };
  }
  // One transaction for the batch; each user is created as `POST /users` creates one (a savepoint inside it).
  const ids = await deps.db.transaction(async (tx) => {
    const inTransaction: AppDeps = { ...deps, db: tx as unknown as Database };
    const created: string[] = [];
    for (const body of bodies) {
      created.push((await createUserFromBody(inTransaction, projectId, config, body)).id);
    }
    return created;
  });
  return { user_ids: ids, errors, imported: ids.length };
}
