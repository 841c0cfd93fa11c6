import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { migrationsFolder } from "./handle.ts";

/**
 * Rolling upgrades (README, Deploy): `gatehouse-server migrate` runs first, and instances of the previous release
 * keep serving on the migrated schema until they are replaced. So a migration may only add (expand): a table, a
 * column with a default or nullable, an index. Statements that break the previous release's reads or writes
 * (dropping or renaming what it uses, changing a column's type, making a column required) belong to a later
 * release than the one that stopped using it (contract), and such a file must say so in a `-- contract:` comment
 * naming the release that stopped using what it removes.
 */
const BREAKING = [
  /\bdrop\s+(table|column|type|view)\b/i,
  /\brename\b/i,
  /\balter\s+column\s+"?\w+"?\s+(set\s+data\s+)?type\b/i,
  /\bset\s+not\s+null\b/i,
];

/** A required column without a default: the previous release's inserts, which do not name it, would fail. */
const requiredColumnWithoutDefault = (statement: string) =>
  /\badd\s+column\b/i.test(statement) && /\bnot\s+null\b/i.test(statement) && !/\bdefault\b/i.test(statement);

it("every migration only expands the schema, or says why it may contract it", () => {
  const offenders: string[] = [];
  for (const file of readdirSync(migrationsFolder).filter((name) => name.endsWith(".sql"))) {
    const text = readFileSync(join(migrationsFolder, file), "utf8");
    if (/^--\s*contract:/im.test(text)) continue;
    // Comments may name anything; only statements count.
    for (const statement of text.replace(/--[^\n]*/g, "").split(";")) {
      const breaking =
        BREAKING.find((pattern) => pattern.test(statement)) ??
        (requiredColumnWithoutDefault(statement) ? "a required column without a default" : undefined);
      if (breaking) offenders.push(`${file}: ${statement.trim()}`);
    }
  }
  expect(offenders).toEqual([]);
});

it("catches a migration that drops a column", () => {
  const statement = 'ALTER TABLE "users" DROP COLUMN "display_name";';
  expect(BREAKING.some((pattern) => pattern.test(statement))).toBe(true);
  expect(BREAKING.some((pattern) => pattern.test('ALTER TABLE "users" ADD COLUMN "x" text;'))).toBe(false);
  expect(requiredColumnWithoutDefault('ALTER TABLE "users" ADD COLUMN "x" text NOT NULL')).toBe(true);
  expect(requiredColumnWithoutDefault('ALTER TABLE "users" ADD COLUMN "x" int DEFAULT 0 NOT NULL')).toBe(
    false,
  );
});
