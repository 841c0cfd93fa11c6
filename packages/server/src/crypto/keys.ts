/**
 * API key formats: project keys (PROTOCOL.md §3.9) and user/team keys (§3.8).
 *
 * How keys are stored: never in plaintext. A key is shown once, in the response that creates it; the database keeps
 * `hashApiKey(key)` (SHA-256, hex) and the last four characters for display. A request's key is hashed and looked up
 * by that hash. An unsalted fast hash is enough because the key holds 225 random bits (see `hash.ts`), and an index
 * lookup on the hash leaks nothing useful: learning that some hash prefix exists reveals nothing about any key.
 *
 * The prefixes, the fixed marker and the checksum are not secret. They exist so that people and secret scanners can
 * recognise a leaked key in a log or a git commit, and so that a truncated or mistyped key is rejected without a
 * database round trip.
 */

import { crc32Hex } from "./crc32.ts";
import { sha256Hex } from "./hash.ts";
import { CROCKFORD_ALPHABET, generateSecureToken, SECURE_TOKEN_LENGTH } from "./random.ts";

/** Hash under which an API key (of any kind) is stored and looked up. Same as `sha256Hex`. */
export function hashApiKey(key: string): string {
  return sha256Hex(key);
}

/** The `last_four` shown in key listings (PROTOCOL.md §3.8, §3.9). */
export function apiKeyLastFour(key: string): string {
  return key.slice(-4);
}

// ---------------------------------------------------------------------------------------------------------------
// Project ("internal") API keys: `pck_` / `ssk_` / `sak_` + 45 lowercase Crockford base32 characters (49 in all).
// ---------------------------------------------------------------------------------------------------------------

export type ProjectApiKeyKind = "publishable_client_key" | "secret_server_key" | "super_secret_admin_key";

export const PROJECT_API_KEY_PREFIXES: Readonly<Record<ProjectApiKeyKind, string>> = {
  publishable_client_key: "pck_",
  secret_server_key: "ssk_",
  super_secret_admin_key: "sak_",
};

/** A new project API key of the given kind, e.g. `ssk_` followed by 45 random characters. */
export function generateProjectApiKey(kind: ProjectApiKeyKind): string {
  return PROJECT_API_KEY_PREFIXES[kind] + generateSecureToken();
}

const PROJECT_KEY_BODY = new RegExp(`^[${CROCKFORD_ALPHABET}]{${SECURE_TOKEN_LENGTH}}$`);

/**
 * The kind of a well-formed generated project key, or null.
 *
 * Informative only: do NOT reject keys that return null. Keys given through the environment for the seeded internal
 * project (e.g. `this-secret-server-key-is-for-local-development-only`, PROTOCOL.md §6) are arbitrary strings, and
 * the kind a key is valid for is decided by which hash column it matches, not by its prefix.
 */
export function projectApiKeyKind(key: string): ProjectApiKeyKind | null {
  for (const [kind, prefix] of Object.entries(PROJECT_API_KEY_PREFIXES) as [ProjectApiKeyKind, string][]) {
    if (key.startsWith(prefix) && PROJECT_KEY_BODY.test(key.slice(prefix.length))) return kind;
  }
  return null;
}

// ---------------------------------------------------------------------------------------------------------------
// User and team API keys (PROTOCOL.md §3.8), 102 characters:
//
//   sk_ 3d9x…(45 random)…  0f5c…(32 hex: key UUID without dashes)…  user 1 574ck4u7h 1a2b3c4d
//   │   │                  │                                        │    │ │         └ CRC-32 (8 hex) of all before it
//   │   │                  │                                        │    │ └ fixed marker, for secret scanners
//   │   │                  │                                        │    └ flag character
//   │   │                  │                                        └ "user" or "team"
//   │   │                  └ the key's row id, so a key names its row without a lookup by value
//   │   └ the secret: 45 lowercase Crockford base32 characters, 225 bits
//   └ "pk_" for public keys, "sk_" for secret ones
//
// The flag character is one Crockford base32 digit (a number 0..31) whose bits are:
//   bit 0 (value 1): self-hosted, i.e. NOT issued by the reference platform's cloud. Gatehouse always sets it.
//   bit 1 (value 2): public key.
//   bits 2..4:       format version, 0.
// This is the layout the reference implementation writes, so keys look the same to any tool that parses them: a
// secret self-hosted key has flag "1", a public self-hosted key "3".
// ---------------------------------------------------------------------------------------------------------------

export type UserOrTeamApiKeyType = "user" | "team";

export type ParsedUserOrTeamApiKey = {
  type: UserOrTeamApiKeyType;
  isPublic: boolean;
  /** Whether the key was issued by a self-hosted server (always true for keys Gatehouse made). */
  isSelfHosted: boolean;
  /** The key's UUID (its row id), lowercase with dashes. */
  id: string;
};

const MARKER = "574ck4u7h";
const FLAG_SELF_HOSTED = 1;
const FLAG_PUBLIC = 2;
const FLAG_VERSION_MASK = 0b11100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const USER_OR_TEAM_KEY = new RegExp(
  `^(pk|sk)_([${CROCKFORD_ALPHABET}]{${SECURE_TOKEN_LENGTH}})([0-9a-f]{32})(user|team)([${CROCKFORD_ALPHABET}])${MARKER}([0-9a-f]{8})$`,
);

/** Total length of a user/team API key: 3 + 45 + 32 + 4 + 1 + 9 + 8. */
export const USER_OR_TEAM_API_KEY_LENGTH = 102;

/**
 * A new user or team API key for the key row `id` (a UUID). Throws if `id` is not a UUID: that is a bug in the caller,
 * not bad input from a client.
 */
export function generateUserOrTeamApiKey(options: {
  type: UserOrTeamApiKeyType;
  isPublic: boolean;
  id: string;
}): string {
  const id = options.id.toLowerCase();
  if (!UUID.test(id)) throw new TypeError(`generateUserOrTeamApiKey: id must be a UUID, got "${options.id}"`);
  if (options.type !== "user" && options.type !== "team") {
    throw new TypeError(`generateUserOrTeamApiKey: type must be "user" or "team"`);
  }
  const flag = FLAG_SELF_HOSTED | (options.isPublic ? FLAG_PUBLIC : 0);
  const body =
    (options.isPublic ? "pk_" : "sk_") +
    generateSecureToken() +
    id.replaceAll("-", "") +
    options.type +
    CROCKFORD_ALPHABET[flag] +
    MARKER;
  return body + crc32Hex(body);
}

/**
 * Reads a user/team API key. Returns null for anything that is not a well-formed key with a correct checksum: wrong
 * length, characters outside the alphabet, unknown prefix, type or format version, a `pk_`/`sk_` prefix that
 * contradicts the public flag, or a bad CRC. A non-null result says nothing about whether the key exists or is
 * still valid; that needs the database (look up `hashApiKey(value)`, then compare the row id with `id`).
 */
export function parseUserOrTeamApiKey(value: string): ParsedUserOrTeamApiKey | null {
  if (typeof value !== "string" || value.length !== USER_OR_TEAM_API_KEY_LENGTH) return null;
  const match = USER_OR_TEAM_KEY.exec(value);
  if (!match) return null;
  const [, prefix, , idHex, type, flagChar, checksum] = match as unknown as [
    string,
    "pk" | "sk",
    string,
    string,
    UserOrTeamApiKeyType,
    string,
    string,
  ];

  const flag = CROCKFORD_ALPHABET.indexOf(flagChar);
  if ((flag & FLAG_VERSION_MASK) !== 0) return null;
  const isPublic = (flag & FLAG_PUBLIC) !== 0;
  if (isPublic !== (prefix === "pk")) return null;

  // The checksum is public information, so a plain comparison is fine here.
  if (crc32Hex(value.slice(0, -8)) !== checksum) return null;

  const id = `${idHex.slice(0, 8)}-${idHex.slice(8, 12)}-${idHex.slice(12, 16)}-${idHex.slice(16, 20)}-${idHex.slice(20)}`;
  return { type, isPublic, isSelfHosted: (flag & FLAG_SELF_HOSTED) !== 0, id };
}
