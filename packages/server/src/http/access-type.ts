export const ACCESS_TYPES = ["client", "server", "admin"] as const;
export type AccessType = (typeof ACCESS_TYPES)[number];

export function isAccessType(value: string): value is AccessType {
  return (ACCESS_TYPES as readonly string[]).includes(value);
}
