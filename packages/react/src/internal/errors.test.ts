import { HttpStatusError, KnownError } from "@gatehouse/js";
import { describe, expect, it } from "vitest";
import { defaultStrings } from "../strings.ts";
import { describeError } from "./errors.ts";

const s = defaultStrings;
const schemaError = (line: string) =>
  new KnownError("SCHEMA_ERROR", {
    message: `Request validation failed on POST /auth/password/sign-up:\n${line}`,
  });

describe("describeError", () => {
  it("puts SCHEMA_ERROR's problem under its field, in words", () => {
    expect(describeError(schemaError("- body.email: Invalid email address"), s)).toEqual({
      field: "email",
      message: s.invalidEmail,
      code: "SCHEMA_ERROR",
    });
    expect(describeError(schemaError("- body.password must be defined"), s)).toEqual({
      field: "password",
      message: s.required,
      code: "SCHEMA_ERROR",
    });
    expect(
      describeError(schemaError("- body.display_name: Too big: expected string to have <=100 characters"), s),
    ).toEqual({
      field: "name",
      message: "Display name must be at most 100 characters long.",
      code: "SCHEMA_ERROR",
    });
    expect(
      describeError(schemaError("- body.code: Too small: expected string to have >=1 characters"), s),
    ).toEqual({
      field: "code",
      message: s.required,
      code: "SCHEMA_ERROR",
    });
  });

  it("says a code of the wrong shape is a link or code that is not valid, not its length rule", () => {
    const badCode = schemaError("- body.code: Too small: expected string to have exactly 45 characters");
    expect(describeError(badCode, s, { link: true })).toEqual({
      field: "code",
      message: s.linkInvalid,
      code: "SCHEMA_ERROR",
    });
    expect(describeError(badCode, s)).toEqual({
      field: "code",
      message: s.codeInvalid,
      code: "SCHEMA_ERROR",
    });
  });

  it("never shows a request line, status line or raw body", () => {
    const failures = [
      schemaError("- body contains unknown properties: extra"),
      new KnownError("SCHEMA_ERROR", { message: "Request validation failed on POST /x:" }),
      new HttpStatusError(400, "POST", "/users", "POST /users failed"),
      new HttpStatusError(500, "POST", "/users", "Internal Server Error"),
      new HttpStatusError(502, "GET", "/users", "<html>Bad gateway</html>"),
      new Error("POST /api/v1/users failed with status 400: body.code: Too small"),
    ];
    for (const failure of failures) {
      const { message } = describeError(failure, s);
      expect(message).not.toMatch(/\/users|\/x|status \d|body\.|<html>/);
      expect([s.invalidValues, s.unexpectedError]).toContain(message);
    }
  });

  it("keeps a plain 4xx sentence of the server", () => {
    expect(describeError(new HttpStatusError(400, "POST", "/x", "That team is full."), s).message).toBe(
      "That team is full.",
    );
  });
});
