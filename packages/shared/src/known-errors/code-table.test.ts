import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
// @ts-expect-error: the generator is plain JavaScript without declarations.
import { renderKnownErrorTable } from "../../../../scripts/known-error-table.mjs";
import { knownErrorCatalogue } from "./catalogue.ts";
import { wireFactsOf } from "./code-table.ts";

describe("the code table KnownError reads", () => {
  it("is what scripts/known-error-table.mjs writes from the catalogue today", () => {
    const committed = readFileSync(new URL("./code-table.ts", import.meta.url), "utf8");
    expect(committed, "run node scripts/known-error-table.mjs").toBe(
      renderKnownErrorTable(knownErrorCatalogue),
    );
  });

  it.each(Object.entries(knownErrorCatalogue))(
    "%s has the catalogue's status, detail keys and families",
    (code, definition) => {
      expect(wireFactsOf(code)).toEqual({
        status: definition.status,
        detailKeys: definition.detailKeys,
        parents: definition.parents,
      });
    },
  );

  it("knows no other code", () => {
    for (const code of ["SOME_FUTURE_ERROR", "toString", "__proto__", ""])
      expect(wireFactsOf(code)).toBeUndefined();
  });
});
