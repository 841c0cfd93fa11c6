import { describe, expect, it } from "vitest";
import { fieldInWords, looksTechnical, problemInWords, schemaIssues } from "./schema-issues.ts";

describe("schemaIssues", () => {
  it("reads each problem line of SCHEMA_ERROR's text, without the route", () => {
    const text = [
      "Request validation failed on POST /users:",
      "- body.primary_email: Invalid email address",
      "- body.display_name must be defined",
      "- body contains unknown properties: extra, other",
      "- query.limit: Too big: expected number to be <=200",
      "- body.members.0.user_id: Too small: expected string to have >=1 characters",
    ].join("\n");
    expect(schemaIssues(text)).toEqual([
      { location: "body", path: ["primary_email"], problem: "is not a valid email address" },
      { location: "body", path: ["display_name"], problem: "is required" },
      { location: "body", path: [], problem: "has fields this version does not accept (extra, other)" },
      { location: "query", path: ["limit"], problem: "must be at most 200" },
      { location: "body", path: ["members", "0", "user_id"], problem: "is required" },
    ]);
    expect(JSON.stringify(schemaIssues(text))).not.toContain("/users");
  });

  it("reads nothing from text that is not SCHEMA_ERROR's", () => {
    expect(schemaIssues("The request failed validation.")).toEqual([]);
  });
});

describe("problemInWords", () => {
  it.each([
    ["Too small: expected string to have >=1 characters", "is required"],
    ["Too small: expected string to have >=8 characters", "must be at least 8 characters long"],
    ["Too big: expected string to have <=256 characters", "must be at most 256 characters long"],
    ["Too big: expected string to have <257 characters", "must be at most 256 characters long"],
    ["Too small: expected array to have >=1 items", "needs at least one entry"],
    ["Too big: expected array to have <=10 items", "can have at most 10 entries"],
    ["Too small: expected number to be >=0", "must be at least 0"],
    ["Invalid input: expected string, received number", "must be text"],
    ["Invalid input: expected boolean, received string", "must be yes or no"],
    ["Invalid input: expected string, received undefined", "is required"],
    ['Invalid option: expected one of "a"|"b"', 'must be one of "a", "b"'],
    ["Invalid email address", "is not a valid email address"],
    ["Invalid URL", "is not a valid URL"],
    ["Invalid UUID", "is not a valid id"],
    ["Invalid string: must match pattern /^[a-z]+$/", "is not in the expected format"],
    ["Invalid input", "is not valid"],
    ["must not contain NUL characters.", "must not contain NUL characters"],
  ])("%s → %s", (message, words) => {
    expect(problemInWords(message)).toBe(words);
  });
});

describe("fieldInWords", () => {
  it("says API field paths as words, counting list entries from one", () => {
    expect(fieldInWords(["primary_email"])).toBe("primary email");
    expect(fieldInWords(["members", "0", "user_id"])).toBe("members 1 user id");
    expect(fieldInWords(["handlerPath"])).toBe("handler path");
  });
});

describe("looksTechnical", () => {
  it.each([
    "POST /users failed with status 400: nope",
    "Request validation failed on PATCH /api/v1/projects/current:",
    "HTTP/1.1 502 Bad Gateway",
    "Error: boom\n    at run (file.ts:3:9)",
    '{"code":"X"}',
    "<html><body>Bad gateway</body></html>",
    "TypeError: x is undefined",
  ])("%s", (text) => expect(looksTechnical(text)).toBe(true));

  it.each(["A user with this email already exists.", "The handler path must start with /."])("%s", (text) =>
    expect(looksTechnical(text)).toBe(false),
  );
});
