/**
 * How a change to a project's row, config or key sets reaches every cache of it. The writer calls
 * `announceProjectChange` inside its transaction: the caches of this process drop the project at once, and a notice
 * on PROJECT_CHANGES_CHANNEL (db/notices.ts), delivered when the transaction commits, tells every process listening
 * or polling on the database (this one included) to drop it again, now that the new rows are visible.
 */
import type { Database } from "../../db/index.ts";
import { sendNotice } from "../../db/notices.ts";

export const PROJECT_CHANGES_CHANNEL = "gatehouse_project_changed";

const inProcessListeners = new Set<(projectId: string) => void>();

/** Hears every announced change made in this process, synchronously. Returns the unsubscribe function. */
export function onProjectChangeInProcess(listener: (projectId: string) => void): () => void {
  inProcessListeners.add(listener);
  return () => inProcessListeners.delete(listener);
}

/** Call from every write of `projects`, `project_config_overrides` or `project_api_key_sets`, with the same db/tx. */
export async function announceProjectChange(db: Database, projectId: string): Promise<void> {
  for (const listener of inProcessListeners) listener(projectId);
  await sendNotice(db, PROJECT_CHANGES_CHANNEL, projectId);
}
