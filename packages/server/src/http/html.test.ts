import { describe, expect, it } from "vitest";
import { escapeHtml } from "./html.ts";

describe("escapeHtml", () => {
  it("escapes the characters that could open markup or close an attribute", () => {
    expect(escapeHtml(`<a href="x" title='y'>Tom & Jerry</a>`)).toBe(
      "&#60;a href=&#34;x&#34; title=&#39;y&#39;&#62;Tom &#38; Jerry&#60;/a&#62;",
    );
  });

  it("leaves other text alone, including already escaped references, which it escapes again", () => {
    expect(escapeHtml("Grüße, 100% / ok")).toBe("Grüße, 100% / ok");
    expect(escapeHtml("&amp;")).toBe("&#38;amp;");
  });
});
