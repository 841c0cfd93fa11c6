import { defineError } from "../definition.ts";
import { text, unsupportedErrorMessage } from "./format.ts";

/** Errors about the request as a whole: its body, its schema, and codes this version does not know. */
export const requestErrors = {
  UNSUPPORTED_ERROR: defineError(500, ["originalErrorCode"], (d) =>
    unsupportedErrorMessage(d.originalErrorCode),
  ),
  BODY_PARSING_ERROR: defineError(400, [], "The request body could not be parsed."),
  /** `details.message` is the whole validation report, and the `error` text repeats it. */
  SCHEMA_ERROR: defineError(400, ["message"], (d) =>
    typeof d.message === "string" && d.message.length > 0 ? d.message : "The request failed validation.",
  ),
  ALL_OVERLOADS_FAILED: defineError(400, ["overload_errors"], (d) => {
    const intro = "This endpoint has several overloads, and every one of them rejected the request.";
    const value = d.overload_errors;
    const errors: unknown[] = Array.isArray(value) ? value : value == null ? [] : [value];
    const reasons = errors.map((error, i) => `Overload ${i + 1}: ${text(error)}`);
    return [intro, ...reasons].join("\n\n");
  }),
} as const;
