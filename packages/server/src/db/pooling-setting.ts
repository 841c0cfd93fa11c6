/**
 * The GATEHOUSE_DATABASE_POOLING setting, apart from pooling.ts so that reading the environment does not load the
 * PostgreSQL driver (an embedded instance never loads it).
 */
export type PoolingMode = "session" | "transaction";
/** What the operator said: `auto` detects it at start-up. */
export type PoolingSetting = PoolingMode | "auto";

export function parsePoolingSetting(value: string | undefined): PoolingSetting {
  if (value === undefined || value === "") return "auto";
  if (value === "auto" || value === "session" || value === "transaction") return value;
  throw new Error(
    `Invalid GATEHOUSE_DATABASE_POOLING "${value}": use transaction (behind a pooler in transaction mode, such as ` +
      "PgBouncer's pool_mode = transaction), session (a direct connection or session pooling), or auto",
  );
}
