import { sql } from "drizzle-orm";
import { PgDialect } from "drizzle-orm/pg-core";
import { describe, expect, it } from "vitest";
import { users } from "../features/users/schema.ts";
import { sqlRenderedOnce } from "./prepared-sql.ts";

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
