import { defineError } from "../definition.ts";
import { text } from "./format.ts";

/** Errors about the data vault and about analytics queries. */
export const dataErrors = {
  // --- Data vault ---
  DATA_VAULT_STORE_DOES_NOT_EXIST: defineError(
    400,
    ["store_id"],
    (d) => `The data vault store ${text(d.store_id)} does not exist.`,
  ),
  DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST: defineError(
    400,
    ["store_id", "hashed_key"],
    (d) => `The data vault store ${text(d.store_id)} has no entry for the hashed key ${text(d.hashed_key)}.`,
  ),

  // --- Analytics ---
  ANALYTICS_NOT_ENABLED: defineError(400, [], "Analytics is not enabled for this project."),
  ANALYTICS_QUERY_TIMEOUT: defineError(
    400,
    ["timeout_ms"],
    (d) => `The analytics query did not finish within ${text(d.timeout_ms)} ms.`,
  ),
  ANALYTICS_QUERY_ERROR: defineError(400, ["error"], (d) => `The analytics query failed: ${text(d.error)}`),
} as const;
