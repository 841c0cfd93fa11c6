import { describe, expect, expectTypeOf, it } from "vitest";
import { cliAndApiKeyErrors } from "./catalogue/cli-and-api-keys.ts";
import { dataErrors } from "./catalogue/data.ts";
import { emailErrors } from "./catalogue/emails.ts";
import { knownErrorFamilies } from "./catalogue/families.ts";
import { oauthErrors } from "./catalogue/oauth.ts";
import { paymentErrors } from "./catalogue/payments.ts";
import { projectAuthErrors } from "./catalogue/project-auth.ts";
import { requestErrors } from "./catalogue/request.ts";
import { sessionErrors } from "./catalogue/session.ts";
import { teamAndPermissionErrors } from "./catalogue/teams-permissions.ts";
import { userErrors } from "./catalogue/users.ts";
import {
  type ConcreteKnownErrorCode,
  isKnownError,
  KNOWN_ERROR_CODES,
  KnownError,
  type KnownErrorDefinition,
  type KnownErrorDetails,
  type KnownErrorFamilyCode,
  knownError,
  knownErrorCatalogue,
} from "./index.ts";

/**
 * PROTOCOL.md §2.3, copied by hand: [code, HTTP status (null for abstract families), details keys in order].
 * Kept here rather than parsed from PROTOCOL.md so the test does not depend on the shared folder.
 */
const PROTOCOL_TABLE: readonly (readonly [string, number | null, readonly string[]])[] = [
  ["UNSUPPORTED_ERROR", 500, ["originalErrorCode"]],
  ["BODY_PARSING_ERROR", 400, []],
  ["SCHEMA_ERROR", 400, ["message"]],
  ["ALL_OVERLOADS_FAILED", 400, ["overload_errors"]],
  ["PROJECT_AUTHENTICATION_ERROR", null, []],
  ["INVALID_PROJECT_AUTHENTICATION", null, []],
  ["PROJECT_KEY_WITHOUT_ACCESS_TYPE", 400, []],
  ["INVALID_ACCESS_TYPE", 400, []],
  ["ACCESS_TYPE_WITHOUT_PROJECT_ID", 400, ["request_type"]],
  ["ACCESS_TYPE_REQUIRED", 400, []],
  ["INSUFFICIENT_ACCESS_TYPE", 401, ["actual_access_type", "allowed_access_types"]],
  ["INVALID_PUBLISHABLE_CLIENT_KEY", 401, ["project_id"]],
  ["INVALID_SECRET_SERVER_KEY", 401, ["project_id"]],
  ["INVALID_SUPER_SECRET_ADMIN_KEY", 401, ["project_id"]],
  ["INVALID_ADMIN_ACCESS_TOKEN", null, []],
  ["UNPARSABLE_ADMIN_ACCESS_TOKEN", 401, []],
  ["ADMIN_ACCESS_TOKEN_EXPIRED", 401, ["expired_at_millis"]],
  ["INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN", 401, []],
  ["ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN", 401, []],
  ["PROJECT_AUTHENTICATION_REQUIRED", null, []],
  ["CLIENT_AUTHENTICATION_REQUIRED", 401, []],
  ["PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT", 401, ["project_id"]],
  ["SERVER_AUTHENTICATION_REQUIRED", 401, []],
  ["CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED", 401, []],
  ["CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED", 401, []],
  ["CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED", 401, []],
  ["ADMIN_AUTHENTICATION_REQUIRED", 401, []],
  ["EXPECTED_INTERNAL_PROJECT", 401, []],
  ["SESSION_AUTHENTICATION_ERROR", null, []],
  ["INVALID_SESSION_AUTHENTICATION", null, []],
  ["INVALID_ACCESS_TOKEN", null, []],
  ["UNPARSABLE_ACCESS_TOKEN", 401, []],
  ["ACCESS_TOKEN_EXPIRED", 401, ["expired_at_millis", "project_id", "user_id", "refresh_token_id"]],
  ["INVALID_PROJECT_FOR_ACCESS_TOKEN", 401, ["expected_project_id", "actual_project_id"]],
  ["REFRESH_TOKEN_ERROR", null, []],
  ["REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", 401, []],
  ["CANNOT_DELETE_CURRENT_SESSION", 400, []],
  ["PROVIDER_REJECTED", 401, []],
  ["USER_EMAIL_ALREADY_EXISTS", 409, ["email", "would_work_if_email_was_verified"]],
  ["EMAIL_NOT_VERIFIED", 400, []],
  ["CANNOT_GET_OWN_USER_WITHOUT_USER", 400, []],
  ["USER_ID_DOES_NOT_EXIST", 400, ["user_id"]],
  ["USER_NOT_FOUND", 404, []],
  ["RESTRICTED_USER_NOT_ALLOWED", 403, ["restricted_reason"]],
  ["PROJECT_NOT_FOUND", 404, ["project_id"]],
  ["CURRENT_PROJECT_NOT_FOUND", 400, ["project_id"]],
  ["BRANCH_DOES_NOT_EXIST", 400, ["branch_id"]],
  ["SIGN_UP_NOT_ENABLED", 400, []],
  ["SIGN_UP_REJECTED", 403, ["message"]],
  ["BOT_CHALLENGE_REQUIRED", 409, []],
  ["BOT_CHALLENGE_FAILED", 400, ["message"]],
  ["PASSWORD_AUTHENTICATION_NOT_ENABLED", 400, []],
  ["DATA_VAULT_STORE_DOES_NOT_EXIST", 400, ["store_id"]],
  ["DATA_VAULT_STORE_HASHED_KEY_DOES_NOT_EXIST", 400, ["store_id", "hashed_key"]],
  ["PASSKEY_AUTHENTICATION_NOT_ENABLED", 400, []],
  ["ANONYMOUS_ACCOUNTS_NOT_ENABLED", 400, []],
  ["ANONYMOUS_AUTHENTICATION_NOT_ALLOWED", 401, []],
  ["EMAIL_PASSWORD_MISMATCH", 400, []],
  ["REDIRECT_URL_NOT_WHITELISTED", 400, []],
  ["PASSWORD_REQUIREMENTS_NOT_MET", null, []],
  ["PASSWORD_TOO_SHORT", 400, ["min_length"]],
  ["PASSWORD_TOO_LONG", 400, ["maxLength"]],
  ["USER_DOES_NOT_HAVE_PASSWORD", 400, []],
  ["VERIFICATION_ERROR", null, []],
  ["VERIFICATION_CODE_NOT_FOUND", 404, []],
  ["VERIFICATION_CODE_EXPIRED", 400, []],
  ["VERIFICATION_CODE_ALREADY_USED", 409, []],
  ["VERIFICATION_CODE_MAX_ATTEMPTS_REACHED", 400, []],
  ["PASSWORD_CONFIRMATION_MISMATCH", 400, []],
  ["EMAIL_ALREADY_VERIFIED", 409, []],
  ["EMAIL_NOT_ASSOCIATED_WITH_USER", 400, []],
  ["EMAIL_IS_NOT_PRIMARY_EMAIL", 400, ["email", "primary_email"]],
  ["PASSKEY_REGISTRATION_FAILED", 400, []],
  ["PASSKEY_WEBAUTHN_ERROR", 400, ["message", "code"]],
  ["PASSKEY_AUTHENTICATION_FAILED", 400, []],
  ["PERMISSION_NOT_FOUND", 404, ["permission_id"]],
  ["WRONG_PERMISSION_SCOPE", 404, ["permission_id", "expected_scope", "actual_scope"]],
  ["CONTAINED_PERMISSION_NOT_FOUND", 400, ["permission_id"]],
  ["TEAM_NOT_FOUND", 404, ["team_id"]],
  ["TEAM_ALREADY_EXISTS", 409, ["team_id"]],
  ["TEAM_MEMBERSHIP_NOT_FOUND", 404, ["team_id", "user_id"]],
  ["TEAM_INVITATION_RESTRICTED_USER_NOT_ALLOWED", 403, ["restricted_reason"]],
  ["EMAIL_TEMPLATE_ALREADY_EXISTS", 409, []],
  ["OAUTH_CONNECTION_NOT_CONNECTED_TO_USER", 400, []],
  ["OAUTH_CONNECTION_ALREADY_CONNECTED_TO_ANOTHER_USER", 409, []],
  ["OAUTH_CONNECTION_DOES_NOT_HAVE_REQUIRED_SCOPE", 400, []],
  ["OAUTH_ACCESS_TOKEN_NOT_AVAILABLE", 400, ["provider", "details"]],
  ["OAUTH_EXTRA_SCOPE_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS", 400, []],
  ["OAUTH_ACCESS_TOKEN_NOT_AVAILABLE_WITH_SHARED_OAUTH_KEYS", 400, []],
  ["INVALID_OAUTH_CLIENT_ID_OR_SECRET", 400, ["client_id"]],
  ["INVALID_SCOPE", 400, []],
  ["USER_ALREADY_CONNECTED_TO_ANOTHER_OAUTH_CONNECTION", 409, []],
  ["OUTER_OAUTH_TIMEOUT", 408, []],
  ["OAUTH_PROVIDER_NOT_FOUND_OR_NOT_ENABLED", 400, []],
  ["APPLE_BUNDLE_ID_NOT_CONFIGURED", 400, []],
  ["OAUTH_PROVIDER_ACCOUNT_ID_ALREADY_USED_FOR_SIGN_IN", 400, []],
  ["MULTI_FACTOR_AUTHENTICATION_REQUIRED", 400, ["attempt_code"]],
  ["INVALID_TOTP_CODE", 400, []],
  ["USER_AUTHENTICATION_REQUIRED", 401, []],
  ["TEAM_MEMBERSHIP_ALREADY_EXISTS", 409, []],
  ["PROJECT_PERMISSION_REQUIRED", 401, ["user_id", "permission_id"]],
  ["TEAM_PERMISSION_REQUIRED", 401, ["team_id", "user_id", "permission_id"]],
  ["TEAM_PERMISSION_NOT_FOUND", 401, ["team_id", "user_id", "permission_id"]],
  ["INVALID_SHARED_OAUTH_PROVIDER_ID", 400, ["provider_id"]],
  ["INVALID_STANDARD_OAUTH_PROVIDER_ID", 400, ["provider_id"]],
  ["INVALID_AUTHORIZATION_CODE", 400, []],
  ["INVALID_APPLE_CREDENTIALS", 400, []],
  ["OAUTH_PROVIDER_ACCESS_DENIED", 400, []],
  ["OAUTH_PROVIDER_TEMPORARILY_UNAVAILABLE", 503, []],
  [
    "CONTACT_CHANNEL_ALREADY_USED_FOR_AUTH_BY_SOMEONE_ELSE",
    409,
    ["type", "contact_channel_value", "would_work_if_email_was_verified"],
  ],
  ["INVALID_POLLING_CODE", 400, []],
  ["CLI_AUTH_ERROR", 400, []],
  ["CLI_AUTH_EXPIRED_ERROR", 400, []],
  ["CLI_AUTH_USED_ERROR", 400, []],
  ["API_KEY_NOT_VALID", null, []],
  ["API_KEY_EXPIRED", 401, []],
  ["API_KEY_REVOKED", 401, []],
  ["WRONG_API_KEY_TYPE", 400, ["expected_type", "actual_type"]],
  ["API_KEY_NOT_FOUND", 404, []],
  ["PUBLIC_API_KEY_CANNOT_BE_REVOKED", 400, []],
  ["PERMISSION_ID_ALREADY_EXISTS", 400, ["permission_id"]],
  ["EMAIL_RENDERING_ERROR", 400, ["error"]],
  ["TEMPLATE_SOURCE_REWRITE_ERROR", 400, ["error"]],
  ["REQUIRES_CUSTOM_EMAIL_SERVER", 400, []],
  ["EMAIL_CAPACITY_BOOST_ALREADY_ACTIVE", 409, ["expires_at"]],
  ["EMAIL_NOT_EDITABLE", 400, ["email_id", "status"]],
  ["ITEM_NOT_FOUND", 404, ["item_id"]],
  [
    "ITEM_CUSTOMER_TYPE_DOES_NOT_MATCH",
    400,
    ["item_id", "customer_id", "item_customer_type", "actual_customer_type"],
  ],
  ["CUSTOMER_DOES_NOT_EXIST", 400, ["customer_id"]],
  ["SUBSCRIPTION_INVOICE_NOT_FOUND", 404, ["subscription_invoice_id"]],
  ["ONE_TIME_PURCHASE_NOT_FOUND", 404, ["one_time_purchase_id"]],
  ["SUBSCRIPTION_ALREADY_REFUNDED", 400, ["subscription_id"]],
  ["ONE_TIME_PURCHASE_ALREADY_REFUNDED", 400, ["one_time_purchase_id"]],
  ["TEST_MODE_PURCHASE_NON_REFUNDABLE", 400, []],
  ["PRODUCT_DOES_NOT_EXIST", 400, ["product_id", "context"]],
  [
    "PRODUCT_CUSTOMER_TYPE_DOES_NOT_MATCH",
    400,
    ["product_id", "customer_id", "product_customer_type", "actual_customer_type"],
  ],
  ["PRODUCT_ALREADY_GRANTED", 400, ["product_id", "customer_id"]],
  ["ITEM_QUANTITY_INSUFFICIENT_AMOUNT", 400, ["item_id", "customer_id", "quantity"]],
  ["STRIPE_ACCOUNT_INFO_NOT_FOUND", 404, []],
  ["DEFAULT_PAYMENT_METHOD_REQUIRED", 400, ["customer_type", "customer_id"]],
  ["NEW_PURCHASES_BLOCKED", 403, []],
  ["ANALYTICS_QUERY_TIMEOUT", 400, ["timeout_ms"]],
  ["ANALYTICS_QUERY_ERROR", 400, ["error"]],
  ["ANALYTICS_NOT_ENABLED", 400, []],
  ["TEAM_INVITATION_EMAIL_MISMATCH", 403, []],
];

/** Family membership (PROTOCOL.md §2.1 and the catalogue's groupings): every concrete code in each family. */
// The families nest: a project authentication error is an invalid one or a missing one, and so on.
const ADMIN_ACCESS_TOKEN_ERRORS = [
  "UNPARSABLE_ADMIN_ACCESS_TOKEN",
  "ADMIN_ACCESS_TOKEN_EXPIRED",
  "INVALID_PROJECT_FOR_ADMIN_ACCESS_TOKEN",
  "ADMIN_ACCESS_TOKEN_IS_NOT_ADMIN",
];
const INVALID_PROJECT_AUTHENTICATION = [
  "PROJECT_KEY_WITHOUT_ACCESS_TYPE",
  "INVALID_ACCESS_TYPE",
  "ACCESS_TYPE_WITHOUT_PROJECT_ID",
  "ACCESS_TYPE_REQUIRED",
  "INSUFFICIENT_ACCESS_TYPE",
  "INVALID_PUBLISHABLE_CLIENT_KEY",
  "INVALID_SECRET_SERVER_KEY",
  "INVALID_SUPER_SECRET_ADMIN_KEY",
  ...ADMIN_ACCESS_TOKEN_ERRORS,
];
const PROJECT_AUTHENTICATION_REQUIRED = [
  "CLIENT_AUTHENTICATION_REQUIRED",
  "PUBLISHABLE_CLIENT_KEY_REQUIRED_FOR_PROJECT",
  "SERVER_AUTHENTICATION_REQUIRED",
  "CLIENT_OR_SERVER_AUTHENTICATION_REQUIRED",
  "CLIENT_OR_ADMIN_AUTHENTICATION_REQUIRED",
  "CLIENT_OR_SERVER_OR_ADMIN_AUTHENTICATION_REQUIRED",
  "ADMIN_AUTHENTICATION_REQUIRED",
];
const ACCESS_TOKEN_ERRORS = [
  "UNPARSABLE_ACCESS_TOKEN",
  "ACCESS_TOKEN_EXPIRED",
  "INVALID_PROJECT_FOR_ACCESS_TOKEN",
];

const FAMILY_MEMBERS: Record<KnownErrorFamilyCode, readonly string[]> = {
  INVALID_ADMIN_ACCESS_TOKEN: ADMIN_ACCESS_TOKEN_ERRORS,
  INVALID_PROJECT_AUTHENTICATION,
  PROJECT_AUTHENTICATION_REQUIRED,
  PROJECT_AUTHENTICATION_ERROR: [
    ...INVALID_PROJECT_AUTHENTICATION,
    ...PROJECT_AUTHENTICATION_REQUIRED,
    "EXPECTED_INTERNAL_PROJECT",
  ],
  INVALID_ACCESS_TOKEN: ACCESS_TOKEN_ERRORS,
  INVALID_SESSION_AUTHENTICATION: ACCESS_TOKEN_ERRORS,
  SESSION_AUTHENTICATION_ERROR: ACCESS_TOKEN_ERRORS,
  REFRESH_TOKEN_ERROR: ["REFRESH_TOKEN_NOT_FOUND_OR_EXPIRED", "PROVIDER_REJECTED"],
  PASSWORD_REQUIREMENTS_NOT_MET: ["PASSWORD_TOO_SHORT", "PASSWORD_TOO_LONG"],
  VERIFICATION_ERROR: [
    "VERIFICATION_CODE_NOT_FOUND",
    "VERIFICATION_CODE_EXPIRED",
    "VERIFICATION_CODE_ALREADY_USED",
    "VERIFICATION_CODE_MAX_ATTEMPTS_REACHED",
  ],
  API_KEY_NOT_VALID: ["API_KEY_EXPIRED", "API_KEY_REVOKED", "WRONG_API_KEY_TYPE", "API_KEY_NOT_FOUND"],
};

/** Codes whose message deliberately shows none of its detail values (they are checked separately). */
const MESSAGES_WITHOUT_DETAIL_VALUES = new Set([
  "MULTI_FACTOR_AUTHENTICATION_REQUIRED", // the attempt code is a handle for the next call, not for people
  "ACCESS_TOKEN_EXPIRED", // shows the expiry time only, and only when it is a number
  "ADMIN_ACCESS_TOKEN_EXPIRED",
]);

const catalogue = knownErrorCatalogue as Record<string, KnownErrorDefinition>;
const concreteRows = PROTOCOL_TABLE.filter(([, status]) => status !== null);

/** Details with a recognisable string value per key, e.g. `{ team_id: "team_id-value" }`. */
function sampleDetails(keys: readonly string[]): Record<string, unknown> {
  return Object.fromEntries(keys.map((key) => [key, `${key}-value`]));
}

describe("the catalogue matches PROTOCOL.md §2.3", () => {
  it("has every code of the table and nothing else", () => {
    const tableCodes = PROTOCOL_TABLE.map(([code]) => code);
    expect(new Set(tableCodes).size).toBe(tableCodes.length);
    expect(Object.keys(knownErrorCatalogue).sort()).toEqual([...tableCodes].sort());
  });

  it.each(PROTOCOL_TABLE)("%s has status %s and details %j", (code, status, detailKeys) => {
    const definition = catalogue[code];
    expect(definition).toBeDefined();
    expect(definition?.status).toBe(status);
    expect(definition?.detailKeys).toEqual(detailKeys);
  });

  it("keeps the odd spellings of the protocol", () => {
    expect(catalogue.PASSWORD_TOO_LONG?.detailKeys).toEqual(["maxLength"]);
    expect(catalogue.UNSUPPORTED_ERROR?.detailKeys).toEqual(["originalErrorCode"]);
    expect(catalogue.USER_EMAIL_ALREADY_EXISTS?.detailKeys).toContain("would_work_if_email_was_verified");
  });

  it("defines no code in two area files", () => {
    const areas = [
      knownErrorFamilies,
      requestErrors,
      projectAuthErrors,
      sessionErrors,
      userErrors,
      teamAndPermissionErrors,
      oauthErrors,
      cliAndApiKeyErrors,
      emailErrors,
      paymentErrors,
      dataErrors,
    ];
    const total = areas.reduce((sum, area) => sum + Object.keys(area).length, 0);
    expect(total).toBe(Object.keys(knownErrorCatalogue).length);
  });

  it("lists exactly the concrete codes in KNOWN_ERROR_CODES", () => {
    expect([...KNOWN_ERROR_CODES].sort()).toEqual(concreteRows.map(([code]) => code).sort());
    expect(Object.keys(knownErrorFamilies).sort()).toEqual(
      PROTOCOL_TABLE.filter(([, status]) => status === null)
        .map(([code]) => code)
        .sort(),
    );
  });
});

describe("families", () => {
  it.each(Object.keys(knownErrorCatalogue))(
    "%s names only existing abstract parents, nearest first",
    (code) => {
      const parents = catalogue[code]?.parents ?? [];
      expect(new Set(parents).size).toBe(parents.length);
      expect(parents).not.toContain(code);
      for (const parent of parents) {
        expect(catalogue[parent], `${code} names the unknown parent ${parent}`).toBeDefined();
        expect(catalogue[parent]?.status, `${code} names the concrete parent ${parent}`).toBeNull();
      }
      // Nearest first: the rest of the list is exactly the nearest parent's own chain.
      const [nearest, ...rest] = parents;
      if (nearest !== undefined) expect(rest).toEqual(catalogue[nearest]?.parents);
    },
  );

  it.each(Object.entries(FAMILY_MEMBERS))("%s has exactly the expected members", (family, members) => {
    const actual = KNOWN_ERROR_CODES.filter((code) =>
      isKnownError(new KnownError(code), family as KnownErrorFamilyCode),
    );
    expect([...actual].sort()).toEqual([...members].sort());
  });

  it("covers every family in the membership list", () => {
    expect(Object.keys(FAMILY_MEMBERS).sort()).toEqual(Object.keys(knownErrorFamilies).sort());
  });

  it("recognises ACCESS_TOKEN_EXPIRED as an invalid access token and a session error, not a refresh error", () => {
    const error = knownError("ACCESS_TOKEN_EXPIRED", {
      expired_at_millis: 1_700_000_000_000,
      project_id: "internal",
      user_id: null,
      refresh_token_id: null,
    });
    expect(isKnownError(error)).toBe(true);
    expect(isKnownError(error, "ACCESS_TOKEN_EXPIRED")).toBe(true);
    expect(isKnownError(error, "INVALID_ACCESS_TOKEN")).toBe(true);
    expect(isKnownError(error, "INVALID_SESSION_AUTHENTICATION")).toBe(true);
    expect(isKnownError(error, "SESSION_AUTHENTICATION_ERROR")).toBe(true);
    expect(isKnownError(error, "REFRESH_TOKEN_ERROR")).toBe(false);
    expect(isKnownError(error, "UNPARSABLE_ACCESS_TOKEN")).toBe(false);
    expect(isKnownError(error, "PROJECT_AUTHENTICATION_ERROR")).toBe(false);
    expect(error.families).toEqual([
      "ACCESS_TOKEN_EXPIRED",
      "INVALID_ACCESS_TOKEN",
      "INVALID_SESSION_AUTHENTICATION",
      "SESSION_AUTHENTICATION_ERROR",
    ]);
  });

  it("does not take plain errors or look-alikes for known errors", () => {
    expect(isKnownError(new Error("ACCESS_TOKEN_EXPIRED"))).toBe(false);
    expect(isKnownError({ code: "ACCESS_TOKEN_EXPIRED", status: 401 }, "ACCESS_TOKEN_EXPIRED")).toBe(false);
    expect(isKnownError(undefined)).toBe(false);
  });

  it("refuses to build an abstract family as an error", () => {
    expect(() => new KnownError("INVALID_ACCESS_TOKEN")).toThrow(TypeError);
    // @ts-expect-error abstract families are not sendable, so the typed builder does not accept them
    expect(() => knownError("REFRESH_TOKEN_ERROR")).toThrow(TypeError);
  });
});

describe("wire format", () => {
  it("leaves details out of the body when a code has none", () => {
    const error = knownError("VERIFICATION_CODE_NOT_FOUND");
    expect(error.status).toBe(404);
    expect(JSON.stringify(error)).toBe(
      '{"code":"VERIFICATION_CODE_NOT_FOUND","error":"The verification code does not exist for this project."}',
    );
  });

  it.each(concreteRows.filter(([, , keys]) => keys.length === 0))("%s never sends details", (code) => {
    const json = new KnownError(code, { stray: 1 }).toJSON();
    expect(Object.keys(json)).toEqual(["code", "error"]);
  });

  it.each(concreteRows.filter(([, , keys]) => keys.length > 0))(
    "%s sends exactly its declared detail keys, in order",
    (code, _status, keys) => {
      const shuffled = Object.fromEntries(Object.entries(sampleDetails(keys)).reverse());
      const json = JSON.parse(JSON.stringify(new KnownError(code, { ...shuffled, stray: 1 })));
      expect(Object.keys(json)).toEqual(["code", "details", "error"]);
      expect(Object.keys(json.details)).toEqual(keys);
    },
  );

  it("sends null, not nothing, for a missing or undefined detail", () => {
    const error = new KnownError("ACCESS_TOKEN_EXPIRED", { expired_at_millis: undefined, user_id: "u1" });
    expect(JSON.parse(JSON.stringify(error)).details).toEqual({
      expired_at_millis: null,
      project_id: null,
      user_id: "u1",
      refresh_token_id: null,
    });
  });

  it.each(concreteRows)("%s round-trips through JSON", (code, status, keys) => {
    const original = new KnownError(code, keys.length > 0 ? sampleDetails(keys) : undefined);
    const rebuilt = KnownError.fromJSON(JSON.parse(JSON.stringify(original)));
    expect(rebuilt).toBeInstanceOf(KnownError);
    expect(rebuilt.code).toBe(code);
    expect(rebuilt.status).toBe(status);
    expect(rebuilt.message).toBe(original.message);
    expect(rebuilt.details).toEqual(original.details);
    expect(rebuilt.toJSON()).toEqual(original.toJSON());
  });

  it("keeps the server's own message when rebuilding", () => {
    const rebuilt = KnownError.fromJSON({
      code: "PASSKEY_AUTHENTICATION_FAILED",
      error: "Passkey not found",
    });
    expect(rebuilt.message).toBe("Passkey not found");
    expect(rebuilt.details).toBeUndefined();
  });

  it("turns an unknown code into UNSUPPORTED_ERROR with originalErrorCode", () => {
    const rebuilt = KnownError.fromJSON({
      code: "SOME_FUTURE_ERROR",
      details: { a: 1 },
      error: "From the future",
    });
    expect(rebuilt.code).toBe("UNSUPPORTED_ERROR");
    expect(rebuilt.status).toBe(500);
    expect(rebuilt.details).toEqual({ originalErrorCode: "SOME_FUTURE_ERROR" });
    expect(rebuilt.message).toContain("SOME_FUTURE_ERROR");
    expect(isKnownError(rebuilt, "UNSUPPORTED_ERROR")).toBe(true);
  });

  it("does not let a body name an abstract family or an inherited property", () => {
    for (const code of ["INVALID_ACCESS_TOKEN", "toString", "__proto__", "constructor"]) {
      const rebuilt = KnownError.fromJSON({ code, error: "x" });
      expect(rebuilt.code).toBe("UNSUPPORTED_ERROR");
      expect(rebuilt.details).toEqual({ originalErrorCode: code });
    }
  });
});

describe("messages", () => {
  it("uses the reference wording where the protocol gives it", () => {
    expect(knownError("EMAIL_PASSWORD_MISMATCH").message).toBe("Wrong e-mail or password.");
    expect(knownError("USER_AUTHENTICATION_REQUIRED").message).toBe(
      "User authentication required for this endpoint.",
    );
    expect(knownError("VERIFICATION_CODE_NOT_FOUND").message).toBe(
      "The verification code does not exist for this project.",
    );
    expect(knownError("MULTI_FACTOR_AUTHENTICATION_REQUIRED", { attempt_code: "abc" }).message).toBe(
      "Multi-factor authentication is required for this user.",
    );
    expect(knownError("CURRENT_PROJECT_NOT_FOUND", { project_id: "p-123" }).message).toBe(
      "The current project with ID p-123 was not found. Please check the value of the x-stack-project-id header.",
    );
    expect(
      knownError("INSUFFICIENT_ACCESS_TYPE", {
        actual_access_type: "client",
        allowed_access_types: ["admin"],
      }).message,
    ).toBe("The x-stack-access-type header must be 'admin', but was 'client'.");
    expect(
      knownError("INSUFFICIENT_ACCESS_TYPE", {
        actual_access_type: "client",
        allowed_access_types: ["server", "admin"],
      }).message,
    ).toBe("The x-stack-access-type header must be 'server' or 'admin', but was 'client'.");
    expect(knownError("INVALID_PUBLISHABLE_CLIENT_KEY", { project_id: "p-1" }).message).toBe(
      'The publishable key is not valid for the project "p-1". Does the project and/or the key exist?',
    );
    expect(knownError("CLI_AUTH_EXPIRED_ERROR").message).toBe(
      "CLI authentication request expired. Please try again.",
    );
    expect(knownError("CLI_AUTH_USED_ERROR").message).toBe(
      "This authentication token has already been used.",
    );
  });

  it.each(
    concreteRows.filter(([code, , keys]) => keys.length > 0 && !MESSAGES_WITHOUT_DETAIL_VALUES.has(code)),
  )("%s mentions its details in the message", (code, _status, keys) => {
    const message = knownError(code as ConcreteKnownErrorCode, sampleDetails(keys) as never).message;
    expect(keys.some((key) => message.includes(`${key}-value`))).toBe(true);
  });

  it("shows the expiry time of expired tokens when it is known", () => {
    const millis = Date.UTC(2030, 0, 2, 3, 4, 5);
    const details = { expired_at_millis: millis, project_id: null, user_id: null, refresh_token_id: null };
    expect(knownError("ACCESS_TOKEN_EXPIRED", details).message).toContain("2030-01-02T03:04:05.000Z");
    expect(knownError("ADMIN_ACCESS_TOKEN_EXPIRED", { expired_at_millis: millis }).message).toContain(
      "2030-01-02T03:04:05.000Z",
    );
    expect(knownError("ADMIN_ACCESS_TOKEN_EXPIRED", { expired_at_millis: null }).message).not.toContain(
      "null",
    );
  });

  it("changes the message when an e-mail would work once verified", () => {
    const plain = knownError("USER_EMAIL_ALREADY_EXISTS", {
      email: "a@b.c",
      would_work_if_email_was_verified: false,
    });
    const unverified = knownError("USER_EMAIL_ALREADY_EXISTS", {
      email: "a@b.c",
      would_work_if_email_was_verified: true,
    });
    expect(plain.message).toBe('A user with the e-mail "a@b.c" already exists.');
    expect(unverified.message).toContain("not verified");
  });

  it.each(concreteRows)("%s has a readable message with real or missing details", (code, _status, keys) => {
    for (const details of [sampleDetails(keys), {}, { [keys[0] ?? "x"]: { nested: true } }]) {
      const message = new KnownError(code, details).message;
      expect(message.length).toBeGreaterThan(0);
      expect(message).not.toContain("undefined");
      expect(message).not.toContain("[object Object]");
    }
  });
});

describe("typed construction", () => {
  it("builds SCHEMA_ERROR with its message as details and as text", () => {
    const text = "Request validation failed on POST /api/v1/users:\n  - body.email must be a valid email";
    const error = knownError("SCHEMA_ERROR", { message: text });
    expect(error).toBeInstanceOf(KnownError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe("KnownError");
    expect(error.code).toBe("SCHEMA_ERROR");
    expect(error.status).toBe(400);
    expect(error.message).toBe(text);
    expect(error.toJSON()).toEqual({ code: "SCHEMA_ERROR", details: { message: text }, error: text });
  });

  it("lets the caller override the message", () => {
    const error = knownError("PASSKEY_REGISTRATION_FAILED", undefined, "The challenge did not match.");
    expect(error.toJSON()).toEqual({
      code: "PASSKEY_REGISTRATION_FAILED",
      error: "The challenge did not match.",
    });
  });

  it("types details by code", () => {
    expectTypeOf<KnownErrorDetails<"PASSWORD_TOO_LONG">>().toEqualTypeOf<{ maxLength: unknown }>();
    expectTypeOf<KnownErrorDetails<"EMAIL_PASSWORD_MISMATCH">>().toEqualTypeOf<{}>();
    expectTypeOf<"SCHEMA_ERROR">().toExtend<ConcreteKnownErrorCode>();
    expectTypeOf<"INVALID_ACCESS_TOKEN">().not.toExtend<ConcreteKnownErrorCode>();

    // @ts-expect-error SCHEMA_ERROR needs its details
    expect(knownError("SCHEMA_ERROR").details).toEqual({ message: null });
    // @ts-expect-error a detail key that SCHEMA_ERROR does not have
    expect(knownError("SCHEMA_ERROR", { msg: "x" }).details).toEqual({ message: null });
    // @ts-expect-error EMAIL_PASSWORD_MISMATCH has no details
    expect(knownError("EMAIL_PASSWORD_MISMATCH", { email: "a@b.c" }).details).toBeUndefined();
    // @ts-expect-error not a code of the catalogue
    expect(knownError("NOT_A_REAL_CODE").status).toBe(500);
  });
});
