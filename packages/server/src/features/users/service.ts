import { and, eq } from "drizzle-orm";
import type { Database } from "../../db/index.ts";
import { type UserRow, users } from "./schema.ts";

const UUID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export async function findUser(db: Database, projectId: string, userId: string): Promise<UserRow | null> {
  if (!UUID_PATTERN.test(userId)) return null;
  const [row] = await db
    .select()
    .from(users)
    .where(and(eq(users.projectId, projectId), eq(users.id, userId)))
    .limit(1);
  return row ?? null;
}
