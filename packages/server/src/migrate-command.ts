/**
 * `gatehouse-server migrate`: applies pending migrations and exits, as its own step of an upgrade (a Kubernetes Job,
 * a compose service that runs once) before instances of the new release start with GATEHOUSE_MIGRATE_ON_START=false.
 * It connects over GATEHOUSE_DATABASE_DIRECT_URL when set, past any pooler; otherwise over DATABASE_URL (the
 * migration lock is transaction-scoped, so a transaction pooler is safe too). Without either it migrates the
 * embedded database in GATEHOUSE_DATA_DIR.
 */
import path from "node:path";

export async function runMigrateCommand(env: NodeJS.ProcessEnv): Promise<number> {
  const url = env.GATEHOUSE_DATABASE_DIRECT_URL || env.DATABASE_URL;
  try {
    if (url) {
      const { migrateOver } = await import("./db/open-postgres.ts");
      const applied = await migrateOver(url);
      report(applied, env.GATEHOUSE_DATABASE_DIRECT_URL ? "GATEHOUSE_DATABASE_DIRECT_URL" : "DATABASE_URL");
    } else {
      // Opening the embedded database applies what is pending (and takes the data directory's lock meanwhile).
      const { openDatabase } = await import("./db/index.ts");
      const dataDir = path.join(path.resolve(env.GATEHOUSE_DATA_DIR ?? ".gatehouse"), "pglite");
      const handle = await openDatabase({ dataDir });
      await handle.close();
      console.log(`The embedded database in ${dataDir} is up to date.`);
    }
    return 0;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    console.error(`Gatehouse cannot migrate: ${reason}`);
    return 1;
  }
}

function report(applied: string[], over: string): void {
  console.log(
    applied.length === 0
      ? `The database is up to date (checked over ${over}).`
      : `Applied ${applied.length} migration(s) over ${over}: ${applied.join(", ")}.`,
  );
}
