import { ConnectionError, HttpStatusError, KnownError } from "@gatehouse/js";
import { knownError } from "@gatehouse/shared";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { describeError, errorMessage } from "./errors.ts";

const schemaError = (...lines: string[]) => {
  const message = [`Request validation failed on POST /users:`, ...lines].join("\n");
  return new KnownError("SCHEMA_ERROR", { message });
};

describe("describeError", () => {
  // Messages it could not word are logged for the developer; not needed in the test output.
  beforeEach(() => {
    vi.spyOn(console, "error").mockImplementation(() => {});
  });

  it("turns SCHEMA_ERROR into one sentence per field, named as the form names it", () => {
    const described = describeError(
      schemaError(
        "- body.primary_email: Invalid email address",
        "- body.display_name: Too big: expected string to have <=100 characters",
      ),
    );
    expect(described.fields).toEqual({
      primary_email: "Email is not a valid email address.",
      display_name: "Name must be at most 100 characters long.",
    });
    expect(described.message).toBe(
      "Email is not a valid email address. Name must be at most 100 characters long.",
    );
  });

  it("takes the form's own labels for its fields", () => {
    const described = describeError(
      schemaError("- body.description: Too small: expected string to have >=1 characters"),
      {
        description: "Key description",
      },
    );
    expect(described.message).toBe("Key description is required.");
  });

  it("never shows the route, status line or the API's field syntax", () => {
    const messages = [
      describeError(schemaError("- body.code: Too small: expected string to have >=1 characters")).message,
      describeError(schemaError("- body contains unknown properties: extra")).message,
      errorMessage(new HttpStatusError(400, "POST", "/users", "POST /users went wrong")),
      errorMessage(new HttpStatusError(500, "POST", "/users", "Internal Server Error")),
      errorMessage(new HttpStatusError(502, "GET", "/users", "<html>Bad gateway</html>")),
      errorMessage(new Error("POST /api/v1/users failed with status 400: body.code: Too small")),
      errorMessage(new KnownError("INTERNAL_ERROR_X", undefined, "boom\n    at f (a.ts:1:2)")),
    ];
    for (const message of messages) {
      expect(message).not.toMatch(/\/users|status \d|body\.|at f \(|<html>/);
      expect(message.length).toBeGreaterThan(5);
    }
    expect(messages[0]).toBe("Code is required.");
  });

  it("keeps the server's own sentences of plain 4xx answers and known errors", () => {
    expect(errorMessage(new HttpStatusError(400, "POST", "/x", "The domain must use https."))).toBe(
      "The domain must use https.",
    );
    // As the server builds it (with the catalogue's sentence), and as the SDK rebuilds it from the answer.
    const sent = knownError("EMAIL_TEMPLATE_ALREADY_EXISTS").toJSON();
    expect(errorMessage(KnownError.fromJSON(sent))).toMatch(/already exists/);
  });

  it("words known errors an owner meets, with the field they are about", () => {
    const described = describeError(new KnownError("USER_EMAIL_ALREADY_EXISTS", { email: "a@b.c" }));
    expect(described).toEqual({
      message: "A user with this email already exists.",
      fields: { primary_email: "A user with this email already exists." },
    });
  });

  it("says rate limits, 5xx, and an unreachable server in words", () => {
    expect(errorMessage(new HttpStatusError(429, "POST", "/x", "slow down"))).toMatch(/Too many attempts/);
    expect(errorMessage(new HttpStatusError(503, "POST", "/x", ""))).toMatch(/server ran into a problem/);
    const offline = new ConnectionError("fetch failed", { online: false, healthUrl: "", health: "" });
    expect(errorMessage(offline)).toMatch(/offline/);
    expect(errorMessage(new TypeError("Failed to fetch"))).toMatch(/cannot be reached/);
    expect(errorMessage("Give the team a name.")).toBe("Give the team a name.");
  });
});
