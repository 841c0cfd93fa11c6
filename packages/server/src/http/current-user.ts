import { knownError } from "@gatehouse/shared";
import type { z } from "zod";
import type { UserRow } from "../features/users/schema.ts";
import type { RequestAuth } from "./request-auth.ts";
import { schemaError } from "./schema-error.ts";
import { StatusError } from "./status-error.ts";

/** The signed-in user, or USER_AUTHENTICATION_REQUIRED. */
export function requireUser(auth: RequestAuth): UserRow {
  if (!auth.user) throw knownError("USER_AUTHENTICATION_REQUIRED");
  return auth.user;
}

/**
 * The signed-in user, for routes where the reference makes the user part of the request's schema: without one the
 * answer is the SCHEMA_ERROR it gives (`auth.user must be defined`), not USER_AUTHENTICATION_REQUIRED.
 */
export function requireUserAsSchema(auth: RequestAuth, method: string, path: string): UserRow {
  if (auth.user) return auth.user;
  throw schemaError(method, path, "auth", [
    {
      code: "invalid_type",
      expected: "object",
      path: ["user"],
      message: "must be defined",
      input: undefined,
    },
  ] as z.core.$ZodIssue[]);
}

/**
 * Resolves a user id from a path, query or body, where `me` stands for the signed-in user (PROTOCOL.md §3.1).
 * Clients may only name themselves; servers and admins may name anyone in the project.
 */
export function resolveUserId(auth: RequestAuth, value: string): string {
  if (value === "me") {
    if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
    return auth.user.id;
  }
  if (auth.accessType === "client" && value !== auth.user?.id) {
    if (!auth.user) throw knownError("USER_AUTHENTICATION_REQUIRED");
    throw new StatusError(
      403,
      "Client access can only act on the signed-in user; use `me` or your own user id.",
    );
  }
  return value;
}

/**
 * The user a client's list is about (PROTOCOL-EXTRA.md §8.4): always its own, named as `me` or by its own id;
 * leaving `user_id` out or naming anyone else is the plain 403 `refusal`. Servers and admins may name anyone, or
 * nobody (the whole project: undefined).
 */
export function ownListUserId(
  auth: RequestAuth,
  value: string | undefined,
  refusal: string,
): string | undefined {
  if (auth.accessType !== "client") return value === undefined ? undefined : resolveUserId(auth, value);
  if (!auth.user) throw knownError("CANNOT_GET_OWN_USER_WITHOUT_USER");
  if (value === "me" || value === auth.user.id) return auth.user.id;
  throw new StatusError(403, refusal);
}

/** The refusal of §8.4 for a list of teams or permissions. */
export const ownListRefusal = (noun: "teams" | "permissions") =>
  `Client can only list ${noun} for their own user. user_id must be either "me" or the ID of the current user`;
