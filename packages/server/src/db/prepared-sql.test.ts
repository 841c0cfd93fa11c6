import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { users } from "../features/users/schema.ts";
import type { Database } from "./index.ts";
import { preparedPerShape, sqlRenderedOnce } from "./prepared-sql.ts";

const dialect = new PgDialect();

describe("sqlRenderedOnce", () => {
  it("renders a fragment's text once and reads the same inside a larger query", () => {
    const fragment = sql`(select count(*) from ${users} u where u.project_id = users.project_id)`;
    const rendered = sqlRenderedOnce(fragment);
    const within = (part: typeof fragment) =>
      dialect.sqlToQuery(sql`select ${part} as n where ${users.id} = ${"x"}`);
    expect(within(rendered)).toEqual(within(fragment));
    expect(dialect.sqlToQuery(rendered).sql).toBe(
      '(select count(*) from "users" u where u.project_id = users.project_id)',
    );
  });

  it("refuses a fragment with values, whose text would lose them", () => {
    expect(() => sqlRenderedOnce(sql`select ${1}`)).toThrow(TypeError);
  });
});

describe("preparedPerShape", () => {
  const dbA = {} as Database;
  const dbB = {} as Database;

  it("builds each shape once per database handle, and again once evicted", () => {
    const built: string[] = [];
    const statementOf = preparedPerShape((db: Database, shape: { order: string; search: boolean }) => {
      built.push(`${db === dbA ? "A" : "B"} ${JSON.stringify(shape)}`);
      return { shape };
    }, 2);
    const first = statementOf(dbA, { order: "asc", search: false });
    expect(statementOf(dbA, { order: "asc", search: false })).toBe(first);
    expect(statementOf(dbA, { order: "asc", search: true })).not.toBe(first);
    expect(statementOf(dbB, { order: "asc", search: false })).not.toBe(first);
    expect(built).toHaveLength(3);
    // A third shape on handle A drops the least recently used one, which is then built again.
    statementOf(dbA, { order: "desc", search: false });
    statementOf(dbA, { order: "asc", search: false });
    expect(built).toHaveLength(5);
    expect(built.at(-1)).toBe('A {"order":"asc","search":false}');
  });
});
