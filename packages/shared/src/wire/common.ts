/**
 * Shapes every resource shares (PROTOCOL.md §2.1, §3.1). Types only: importing this module costs a bundle nothing.
 */
import type { KnownErrorJson } from "../known-errors/known-error.ts";

/** A JSON value as it crosses the wire. Metadata fields hold whatever JSON the app stored, so they read `unknown`. */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** An unpaginated list (every list but users and a customer's products). */
export type WireList<T> = { items: T[]; is_paginated: false };

/** A paginated list: `next_cursor` is the id of the next page's first item, inclusive. */
export type WirePaginatedList<T> = {
  items: T[];
  is_paginated: true;
  pagination: { next_cursor: string | null };
};

/** The answer of deletes and of many actions. */
export type WireSuccess = { success: true };

/** `{is_code_valid: true}` of the `…/check-code` routes. */
export type WireCodeCheck = { is_code_valid: true };

/** The known-error body (defined beside KnownError, which writes and reads it). */
export type WireKnownError = KnownErrorJson;
