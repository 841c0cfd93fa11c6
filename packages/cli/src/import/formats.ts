/**
 * Maps a record of another system's export to a `POST /users` body (the README's "Moving users in" table says the
 * same). A mapping problem throws a RowError, reported with the record's line.
 */
export const SOURCES = ["gatehouse", "auth0", "clerk", "firebase", "supabase"] as const;
export type Source = (typeof SOURCES)[number];

export type UserBody = Record<string, unknown>;
export type FirebaseHashConfig = {
  signerKey: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
};
export type MapOptions = { firebase?: FirebaseHashConfig };

export class RowError extends Error {}

const str = (value: unknown): string | undefined =>
  typeof value === "string" && value.trim() !== ""
    ? value.trim()
    : typeof value === "number"
      ? String(value)
      : undefined;

function bool(value: unknown, field: string): boolean | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  if (typeof value === "boolean") return value;
  if (value === "true" || value === "TRUE" || value === "1") return true;
  if (value === "false" || value === "FALSE" || value === "0") return false;
  throw new RowError(`${field} must be true or false, got ${JSON.stringify(value)}`);
}

/** Metadata may come as an object (JSON) or as JSON text (CSV). */
function json(value: unknown, field: string): Record<string, unknown> | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  let parsed = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new RowError(`${field} is not valid JSON`);
    }
  }
  if (parsed === null) return undefined;
  if (typeof parsed !== "object" || Array.isArray(parsed))
    throw new RowError(`${field} must be a JSON object`);
  return parsed as Record<string, unknown>;
}

/** Drops undefined fields, so that the body says only what the record said. */
function compact(body: Record<string, unknown>): UserBody {
  return Object.fromEntries(Object.entries(body).filter(([, value]) => value !== undefined));
}

const withId = (metadata: Record<string, unknown> | undefined, key: string, id: string | undefined) =>
  id ? { ...metadata, [key]: id } : metadata;

function fromGatehouse(record: Record<string, unknown>): UserBody {
  return compact({
    primary_email: str(record.primary_email),
    primary_email_verified: bool(record.primary_email_verified, "primary_email_verified"),
    primary_email_auth_enabled: bool(record.primary_email_auth_enabled, "primary_email_auth_enabled"),
    display_name: str(record.display_name),
    profile_image_url: str(record.profile_image_url),
    client_metadata: json(record.client_metadata, "client_metadata"),
    client_read_only_metadata: json(record.client_read_only_metadata, "client_read_only_metadata"),
    server_metadata: json(record.server_metadata, "server_metadata"),
    is_anonymous: bool(record.is_anonymous, "is_anonymous"),
    password_hash: str(record.password_hash),
  });
}

function fromAuth0(record: Record<string, unknown>): UserBody {
  const oid = (record._id as { $oid?: string } | undefined)?.$oid;
  const id = str(record.user_id) ?? str(record.Id) ?? str(oid);
  return compact({
    primary_email: str(record.email) ?? str(record.Email),
    primary_email_verified: bool(record.email_verified ?? record["Email Verified"], "email_verified"),
    display_name: str(record.name) ?? str(record.nickname) ?? str(record.Name),
    profile_image_url: str(record.picture),
    client_metadata: json(record.user_metadata, "user_metadata"),
    server_metadata: withId(json(record.app_metadata, "app_metadata"), "auth0_user_id", id),
    password_hash: str(record.passwordHash) ?? str(record.password_hash),
  });
}

const CLERK_HASHERS = new Set(["bcrypt", "argon2i", "argon2id"]);

function fromClerk(record: Record<string, unknown>): UserBody {
  const email = str(record.primary_email_address) ?? str(record.email_address);
  const verifiedList = (str(record.verified_email_addresses) ?? "").split(/[\s,;|]+/).filter(Boolean);
  const hasher = str(record.password_hasher);
  const digest = str(record.password_digest);
  if (digest && hasher && !CLERK_HASHERS.has(hasher)) {
    throw new RowError(`password_hasher ${hasher} is not supported (bcrypt, argon2i and argon2id are)`);
  }
  const name =
    [str(record.first_name), str(record.last_name)].filter(Boolean).join(" ") || str(record.username);
  return compact({
    primary_email: email,
    primary_email_verified: email ? verifiedList.includes(email) || undefined : undefined,
    display_name: name,
    server_metadata: withId(undefined, "clerk_user_id", str(record.id)),
    password_hash: digest,
  });
}

const standardBase64 = (text: string) => text.replaceAll("-", "+").replaceAll("_", "/");

function fromFirebase(record: Record<string, unknown>, options: MapOptions): UserBody {
  const hash = str(record.passwordHash);
  let passwordHash: string | undefined;
  if (hash) {
    const config = options.firebase;
    if (!config) {
      throw new RowError("has a password hash but no --firebase-signer-key etc. were given (see --help)");
    }
    const salt = standardBase64(str(record.salt) ?? "");
    passwordHash =
      `$firebase-scrypt$n=${config.memCost},r=${config.rounds}$${config.signerKey}$${config.saltSeparator}` +
      `$${salt}$${standardBase64(hash)}`;
  }
  return compact({
    primary_email: str(record.email),
    primary_email_verified: bool(record.emailVerified, "emailVerified"),
    display_name: str(record.displayName),
    profile_image_url: str(record.photoUrl),
    server_metadata: withId(
      json(record.customAttributes, "customAttributes"),
      "firebase_uid",
      str(record.localId),
    ),
    password_hash: passwordHash,
  });
}

function fromSupabase(record: Record<string, unknown>): UserBody {
  const userMeta = json(record.raw_user_meta_data, "raw_user_meta_data");
  return compact({
    primary_email: str(record.email),
    primary_email_verified: str(record.email_confirmed_at) ? true : undefined,
    display_name: str(userMeta?.full_name) ?? str(userMeta?.name),
    profile_image_url: str(userMeta?.avatar_url),
    client_metadata: userMeta,
    server_metadata: withId(
      json(record.raw_app_meta_data, "raw_app_meta_data"),
      "supabase_user_id",
      str(record.id),
    ),
    password_hash: str(record.encrypted_password),
  });
}

export function mapRecord(
  source: Source,
  record: Record<string, unknown>,
  options: MapOptions = {},
): UserBody {
  switch (source) {
    case "auth0":
      return fromAuth0(record);
    case "clerk":
      return fromClerk(record);
    case "firebase":
      return fromFirebase(record, options);
    case "supabase":
      return fromSupabase(record);
    default:
      return fromGatehouse(record);
  }
}
