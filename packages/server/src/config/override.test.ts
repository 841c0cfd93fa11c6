import { describe, expect, it } from "vitest";
import {
  applyOverride,
  mergeOverrideOverride,
  normalizeOverride,
  overrideTouchesPath,
  removeKeys,
  validateOverrideShape,
} from "./override.ts";

describe("applyOverride", () => {
  it("expands dot keys and deep-merges into the base", () => {
    const base = {
      auth: { allowSignUp: true, oauth: { accountMergeStrategy: "link_method", providers: {} } },
    };
    const result = applyOverride(base, {
      "auth.oauth.providers.spotify": { type: "spotify", isShared: false, clientId: "id" },
      "teams.allowClientTeamCreation": true,
      auth: { allowSignUp: false },
    });
    expect(result).toEqual({
      auth: {
        allowSignUp: false,
        oauth: {
          accountMergeStrategy: "link_method",
          providers: { spotify: { type: "spotify", isShared: false, clientId: "id" } },
        },
      },
      teams: { allowClientTeamCreation: true },
    });
  });

  it("merges objects key by key but lets leaves, arrays and null replace", () => {
    const base = { a: { b: 1, c: 2 }, d: [1, 2, 3], e: { f: 1 }, g: 5 };
    const result = applyOverride(base, { "a.b": 10, d: [9], e: null, "g.h": true });
    expect(result).toEqual({ a: { b: 10, c: 2 }, d: [9], e: null, g: { h: true } });
  });

  it("stores null as null and lets a later object replace a null", () => {
    const withNull = applyOverride({ x: { y: { z: 1 } } }, { "x.y": null });
    expect(withNull).toEqual({ x: { y: null } });
    expect(applyOverride(withNull, { "x.y.w": 2 })).toEqual({ x: { y: { w: 2 } } });
  });

  it("does not modify its arguments", () => {
    const base = { a: { b: 1 } };
    const override = { "a.c": { d: [1] } };
    applyOverride(base, override);
    expect(base).toEqual({ a: { b: 1 } });
    expect(override).toEqual({ "a.c": { d: [1] } });
  });

  it("dot keys inside nested objects expand too", () => {
    expect(normalizeOverride({ auth: { "oauth.providers.github": { type: "github" } } })).toEqual({
      auth: { oauth: { providers: { github: { type: "github" } } } },
    });
  });

  it("never writes through __proto__", () => {
    const result = applyOverride({}, JSON.parse('{"__proto__": {"polluted": true}, "a.__proto__.b": 1}'));
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(result).toEqual({});
  });
});

describe("validateOverrideShape", () => {
  it("accepts a well-formed override with both spellings of different keys", () => {
    expect(
      validateOverrideShape({
        "auth.oauth.providers.spotify": { type: "spotify" },
        auth: { allowSignUp: false, "otp.allowSignIn": true },
        "rbac.permissions.team:read": { scope: "team" },
        "rbac.defaultPermissions.teamCreator": { $update_team: true },
        "domains.trustedDomains.my-domain": { baseUrl: "https://x.example", handlerPath: "/handler" },
        "auth.signUpRules.r1": { conditions: [{ "any key.with dots": null }] },
        unset: null,
      }),
    ).toEqual([]);
  });

  it("rejects non-objects", () => {
    expect(validateOverrideShape([])).toEqual([
      "the config override must be a JSON object, but got an array",
    ]);
    expect(validateOverrideShape("x")[0]).toContain('the string "x"');
    expect(validateOverrideShape(null)[0]).toContain("null");
  });

  it("rejects bad keys with a readable reason", () => {
    const problems = validateOverrideShape({
      "a..b": 1,
      ".a": 1,
      "a.": 1,
      "a b": 1,
      é: 1,
      auth: { "x/y": 1 },
    });
    expect(problems).toHaveLength(6);
    expect(problems[0]).toBe(
      'invalid key "a..b": empty segment (check for a leading, trailing or doubled dot)',
    );
    expect(problems[3]).toBe(
      'invalid key "a b": segment "a b" may only contain letters, digits and the characters _ : $ -',
    );
    expect(problems[5]).toBe(
      'invalid key "x/y" (under "auth"): segment "x/y" may only contain letters, digits and the characters _ : $ -',
    );
    expect(validateOverrideShape(JSON.parse('{"__proto__": 1}'))).toEqual([
      'invalid key "__proto__": "__proto__" is a reserved name',
    ]);
  });

  it("rejects non-JSON values", () => {
    const problems = validateOverrideShape({
      a: Number.NaN,
      b: Number.POSITIVE_INFINITY,
      c: new Date(0),
      d: [1, () => 1],
      e: { f: 1n },
      g: undefined,
    });
    expect(problems).toEqual([
      "a: NaN is not a JSON number",
      "b: Infinity is not a JSON number",
      "c: only plain JSON objects are allowed",
      "d[1]: a function is not a JSON value",
      "e.f: a bigint is not a JSON value",
    ]);
  });

  it("rejects the same key given twice through different spellings", () => {
    expect(validateOverrideShape({ "a.b": 1, a: { b: 2 } })).toEqual([
      'key "a.b" is given more than once (as {"a.b": …} and {"a": {"b": …}}); give each key only once',
    ]);
    expect(validateOverrideShape({ "auth.oauth": {}, auth: { oauth: { providers: {} } } })).toHaveLength(1);
    expect(validateOverrideShape({ a: { "b.c": 1, b: { c: 2 } } })[0]).toContain(
      'key "a.b.c" is given more than once',
    );
  });

  it("rejects a key set beneath a non-object value of the same override", () => {
    expect(validateOverrideShape({ "a.b": null, "a.b.c": 1 })).toEqual([
      'key "a.b.c" is set beneath "a.b", which the same override sets to null; set "a.b" to an object instead, or drop one of the two',
    ]);
    expect(validateOverrideShape({ a: { b: 5 }, "a.b.c": 1 })).toHaveLength(1);
  });
});

describe("mergeOverrideOverride", () => {
  it("replaces the patched key and everything beneath it, in both spellings, keeping other spellings", () => {
    const existing = {
      "auth.oauth.providers.google": { type: "google", clientId: "old" },
      auth: {
        allowSignUp: false,
        oauth: { accountMergeStrategy: "raise_error", providers: { github: { type: "github" } } },
      },
      "teams.allowClientTeamCreation": true,
    };
    const result = mergeOverrideOverride(existing, { "auth.oauth": { providers: { x: { type: "x" } } } });
    expect(result).toEqual({
      auth: { allowSignUp: false },
      "teams.allowClientTeamCreation": true,
      "auth.oauth": { providers: { x: { type: "x" } } },
    });
    expect(normalizeOverride(result)).toEqual({
      auth: { allowSignUp: false, oauth: { providers: { x: { type: "x" } } } },
      teams: { allowClientTeamCreation: true },
    });
  });

  it("keeps siblings when patching a deep key", () => {
    const existing = {
      auth: { oauth: { providers: { x: { type: "x", clientId: "a", clientSecret: "s" } } } },
    };
    const result = mergeOverrideOverride(existing, { "auth.oauth.providers.x.clientId": "b" });
    expect(result).toEqual({
      auth: { oauth: { providers: { x: { type: "x", clientSecret: "s" } } } },
      "auth.oauth.providers.x.clientId": "b",
    });
    expect(normalizeOverride(result)).toEqual({
      auth: { oauth: { providers: { x: { type: "x", clientId: "b", clientSecret: "s" } } } },
    });
  });

  it("treats each top-level key of the patch as one replacement, however it is spelled", () => {
    const existing = { auth: { allowSignUp: false, password: { allowSignIn: true } } };
    expect(normalizeOverride(mergeOverrideOverride(existing, { "auth.allowSignUp": true }))).toEqual({
      auth: { allowSignUp: true, password: { allowSignIn: true } },
    });
    // A nested patch key is the key "auth": it replaces all of auth.
    expect(mergeOverrideOverride(existing, { auth: { allowSignUp: true } })).toEqual({
      auth: { allowSignUp: true },
    });
  });

  it("keeps dotted keys as written and patches them in place of the same key", () => {
    const first = mergeOverrideOverride(
      {},
      { "teams.allowClientTeamCreation": true, "auth.allowSignUp": false },
    );
    expect(first).toEqual({ "teams.allowClientTeamCreation": true, "auth.allowSignUp": false });
    expect(mergeOverrideOverride(first, { "teams.allowClientTeamCreation": false })).toEqual({
      "auth.allowSignUp": false,
      "teams.allowClientTeamCreation": false,
    });
  });

  it("does not treat a key that merely shares a prefix string as beneath", () => {
    const existing = { "auth.oauthExtra": 1, "auth.oauth.providers.a": { type: "google" } };
    expect(mergeOverrideOverride(existing, { "auth.oauth": null })).toEqual({
      "auth.oauthExtra": 1,
      "auth.oauth": null,
    });
  });

  it("stores null and can later set keys beneath it", () => {
    const deleted = mergeOverrideOverride(
      { "domains.trustedDomains.a": { baseUrl: "https://a" } },
      { "domains.trustedDomains.a": null },
    );
    expect(deleted).toEqual({ "domains.trustedDomains.a": null });
    const set = mergeOverrideOverride(deleted, { "domains.trustedDomains.a.baseUrl": "https://b" });
    expect(set).toEqual({ "domains.trustedDomains.a.baseUrl": "https://b" });
    expect(validateOverrideShape(set)).toEqual([]);
    // The same when the null sits inside a nested spelling.
    const nested = mergeOverrideOverride(
      { domains: { trustedDomains: { a: null, b: { baseUrl: "https://c" } } } },
      { "domains.trustedDomains.a.baseUrl": "https://b" },
    );
    expect(validateOverrideShape(nested)).toEqual([]);
    expect(normalizeOverride(nested)).toEqual({
      domains: { trustedDomains: { a: { baseUrl: "https://b" }, b: { baseUrl: "https://c" } } },
    });
  });

  it("lets a patch set a key and a deeper one within it", () => {
    const result = mergeOverrideOverride({ a: { old: 1 } }, { "a.b.c": 3, a: { b: { d: 4 } } });
    expect(result).toEqual({ "a.b.c": 3, a: { b: { d: 4 } } });
    expect(normalizeOverride(result)).toEqual({ a: { b: { d: 4, c: 3 } } });
  });

  it("does not modify its arguments", () => {
    const existing = { "a.b": { c: 1 } };
    const patch = { "a.d": [1] };
    const result = mergeOverrideOverride(existing, patch);
    expect(result).toEqual({ "a.b": { c: 1 }, "a.d": [1] });
    expect(existing).toEqual({ "a.b": { c: 1 } });
    expect(patch).toEqual({ "a.d": [1] });
  });
});

describe("removeKeys", () => {
  it("removes keys and everything beneath them, in both spellings, and prunes emptied parents", () => {
    const override = {
      "auth.oauth.providers.google": { type: "google" },
      auth: { allowSignUp: false, oauth: { providers: { github: { type: "github" } } } },
      teams: { allowClientTeamCreation: true },
      "domains.allowLocalhost": true,
    };
    expect(removeKeys(override, ["auth.oauth"])).toEqual({
      auth: { allowSignUp: false },
      teams: { allowClientTeamCreation: true },
      "domains.allowLocalhost": true,
    });
    expect(
      removeKeys(override, [
        "auth.oauth.providers.google",
        "auth.oauth.providers.github",
        "teams",
        "domains",
      ]),
    ).toEqual({
      auth: { allowSignUp: false },
    });
  });

  it("ignores keys that are not present", () => {
    expect(removeKeys({ a: { b: 1 }, "x.y": null }, ["a.b.c", "x.y.z", "a.c", ""])).toEqual({
      a: { b: 1 },
      "x.y": null,
    });
  });

  it("keeps explicitly empty objects that were not emptied by the removal", () => {
    expect(removeKeys({ a: { b: {} }, c: 1 }, ["c"])).toEqual({ a: { b: {} } });
  });
});

describe("overrideTouchesPath", () => {
  it("is true for the key itself, its ancestors set to leaves and keys beneath it", () => {
    const normalized = { a: { b: { c: 1 } }, x: null };
    expect(overrideTouchesPath(normalized, ["a", "b", "c"])).toBe(true);
    expect(overrideTouchesPath(normalized, ["a", "b"])).toBe(true);
    expect(overrideTouchesPath(normalized, ["x", "y"])).toBe(true);
    expect(overrideTouchesPath(normalized, ["a", "z"])).toBe(false);
  });
});
