/** CSV for `users export` (RFC 4180 quoting) and the columns it writes, which `users import` reads back. */

export const EXPORT_CSV_COLUMNS = [
  "id",
  "primary_email",
  "primary_email_verified",
  "primary_email_auth_enabled",
  "display_name",
  "profile_image_url",
  "signed_up_at_millis",
  "is_anonymous",
  "password_hash",
  "client_metadata",
  "client_read_only_metadata",
  "server_metadata",
];

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return "";
  const text = typeof value === "object" ? JSON.stringify(value) : String(value);
  return /[",\r\n]/.test(text) || /^\s|\s$/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

export function toCsvRow(values: unknown[]): string {
  return values.map(csvCell).join(",");
}
