import { crc32 as zlibCrc32 } from "node:zlib";
import { describe, expect, it } from "vitest";
import { sha256Hex } from "./hash.ts";
import {
  apiKeyLastFour,
  generateProjectApiKey,
  generateUserOrTeamApiKey,
  hashApiKey,
  PROJECT_API_KEY_PREFIXES,
  type ProjectApiKeyKind,
  parseUserOrTeamApiKey,
  projectApiKeyKind,
  USER_OR_TEAM_API_KEY_LENGTH,
} from "./keys.ts";
import { CROCKFORD_ALPHABET } from "./random.ts";

const ID = "0f5c8a3e-1b2d-4c6e-8f90-a1b2c3d4e5f6";

/** Recomputes the checksum of a key whose body was edited, with zlib as an independent CRC-32. */
function withChecksum(body: string): string {
  return body + zlibCrc32(Buffer.from(body, "utf8")).toString(16).padStart(8, "0");
}

describe("project API keys", () => {
  const kinds: ProjectApiKeyKind[] = [
    "publishable_client_key",
    "secret_server_key",
    "super_secret_admin_key",
  ];

  it("are the prefix plus 45 lowercase Crockford characters", () => {
    expect(PROJECT_API_KEY_PREFIXES).toEqual({
      publishable_client_key: "pck_",
      secret_server_key: "ssk_",
      super_secret_admin_key: "sak_",
    });
    for (const kind of kinds) {
      const key = generateProjectApiKey(kind);
      expect(key).toHaveLength(49);
      expect(key.startsWith(PROJECT_API_KEY_PREFIXES[kind])).toBe(true);
      expect(key.slice(4)).toMatch(/^[0-9a-hjkmnp-tv-z]{45}$/);
      expect(projectApiKeyKind(key)).toBe(kind);
    }
    expect(generateProjectApiKey("secret_server_key")).not.toBe(generateProjectApiKey("secret_server_key"));
  });

  it("projectApiKeyKind returns null for other strings (such as seeded development keys)", () => {
    expect(projectApiKeyKind("this-secret-server-key-is-for-local-development-only")).toBeNull();
    expect(projectApiKeyKind(`ssk_${"a".repeat(44)}`)).toBeNull();
    expect(projectApiKeyKind(`ssk_${"a".repeat(46)}`)).toBeNull();
    expect(projectApiKeyKind(`ssk_${"i".repeat(45)}`)).toBeNull();
    expect(projectApiKeyKind(`SSK_${"a".repeat(45)}`)).toBeNull();
    expect(projectApiKeyKind("")).toBeNull();
  });

  it("stores a SHA-256 and shows the last four characters", () => {
    const key = generateProjectApiKey("super_secret_admin_key");
    expect(hashApiKey(key)).toBe(sha256Hex(key));
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(apiKeyLastFour(key)).toBe(key.slice(-4));
  });
});

describe("user and team API keys", () => {
  it("have the layout of PROTOCOL.md §3.8", () => {
    const key = generateUserOrTeamApiKey({ type: "user", isPublic: false, id: ID });
    expect(key).toHaveLength(USER_OR_TEAM_API_KEY_LENGTH);
    expect(USER_OR_TEAM_API_KEY_LENGTH).toBe(102);
    const match = /^(sk)_([0-9a-hjkmnp-tv-z]{45})([0-9a-f]{32})(user)(.)574ck4u7h([0-9a-f]{8})$/.exec(key);
    expect(match).not.toBeNull();
    expect(match?.[3]).toBe(ID.replaceAll("-", ""));
    // Flag: bit 0 self-hosted (set), bit 1 public (clear) = 1.
    expect(match?.[5]).toBe("1");
    expect(match?.[6]).toBe(
      zlibCrc32(Buffer.from(key.slice(0, -8)))
        .toString(16)
        .padStart(8, "0"),
    );
  });

  it("uses pk_ and flag 3 for public keys, and the team type", () => {
    const key = generateUserOrTeamApiKey({ type: "team", isPublic: true, id: ID });
    expect(key.startsWith("pk_")).toBe(true);
    expect(key.slice(-22, -8)).toBe("team3574ck4u7h");
  });

  it("round-trips through parse", () => {
    for (const type of ["user", "team"] as const) {
      for (const isPublic of [true, false]) {
        const key = generateUserOrTeamApiKey({ type, isPublic, id: ID });
        expect(parseUserOrTeamApiKey(key)).toEqual({ type, isPublic, isSelfHosted: true, id: ID });
      }
    }
  });

  it("accepts an uppercase UUID and normalises it", () => {
    const key = generateUserOrTeamApiKey({ type: "user", isPublic: false, id: ID.toUpperCase() });
    expect(parseUserOrTeamApiKey(key)?.id).toBe(ID);
  });

  it("refuses to generate from a non-UUID id", () => {
    expect(() => generateUserOrTeamApiKey({ type: "user", isPublic: false, id: "not-a-uuid" })).toThrow(
      TypeError,
    );
  });

  it("rejects a tampered checksum or body", () => {
    const key = generateUserOrTeamApiKey({ type: "user", isPublic: false, id: ID });
    const lastChar = key.at(-1) === "0" ? "1" : "0";
    expect(parseUserOrTeamApiKey(key.slice(0, -1) + lastChar)).toBeNull();
    // Change one secret character: the checksum no longer matches.
    const other = key[10] === "a" ? "b" : "a";
    expect(parseUserOrTeamApiKey(key.slice(0, 10) + other + key.slice(11))).toBeNull();
    // Change the id part.
    const idStart = 3 + 45;
    const otherHex = key[idStart] === "0" ? "1" : "0";
    expect(parseUserOrTeamApiKey(key.slice(0, idStart) + otherHex + key.slice(idStart + 1))).toBeNull();
  });

  it("rejects wrong lengths, prefixes, types, markers and cases", () => {
    const key = generateUserOrTeamApiKey({ type: "user", isPublic: false, id: ID });
    const body = key.slice(0, -8);
    expect(parseUserOrTeamApiKey(key.slice(0, -1))).toBeNull();
    expect(parseUserOrTeamApiKey(`${key}0`)).toBeNull();
    expect(parseUserOrTeamApiKey(withChecksum(`sk_${body.slice(4)}`))).toBeNull(); // 44 secret chars
    expect(parseUserOrTeamApiKey(withChecksum(`xk${body.slice(2)}`))).toBeNull();
    expect(parseUserOrTeamApiKey(withChecksum(`pck${body.slice(2)}`))).toBeNull();
    expect(parseUserOrTeamApiKey(withChecksum(body.replace("user1", "usex1")))).toBeNull();
    expect(parseUserOrTeamApiKey(withChecksum(body.replace("574ck4u7h", "574ck4u7x")))).toBeNull();
    expect(parseUserOrTeamApiKey(key.toUpperCase())).toBeNull();
    expect(parseUserOrTeamApiKey("")).toBeNull();
    expect(parseUserOrTeamApiKey(generateProjectApiKey("secret_server_key"))).toBeNull();
  });

  it("rejects flags that contradict the prefix or carry an unknown version", () => {
    const key = generateUserOrTeamApiKey({ type: "user", isPublic: false, id: ID });
    const body = key.slice(0, -8);
    const withFlag = (flag: number) =>
      withChecksum(body.replace("user1574ck4u7h", `user${CROCKFORD_ALPHABET[flag]}574ck4u7h`));
    // Still a valid secret self-hosted key after recomputing the checksum:
    expect(parseUserOrTeamApiKey(withFlag(1))).not.toBeNull();
    // A cloud (not self-hosted) secret key parses and says so:
    expect(parseUserOrTeamApiKey(withFlag(0))).toMatchObject({ isSelfHosted: false, isPublic: false });
    // sk_ with the public bit set:
    expect(parseUserOrTeamApiKey(withFlag(3))).toBeNull();
    // Version bits set:
    expect(parseUserOrTeamApiKey(withFlag(5))).toBeNull();
    expect(parseUserOrTeamApiKey(withFlag(31))).toBeNull();
  });
});
