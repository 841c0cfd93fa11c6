/**
 * `POST /internal/rewrite-template-source` (PROTOCOL-EXTRA §1.12): the dashboard turns an email template into a
 * draft by asking the AI helper to rewrite its TSX (fixed content instead of the template's variables). One model
 * call with the `rewrite-template-source` system prompt and no tools, under the owner's AI rate limit; what the
 * model answers is the new source, a Markdown code fence around it removed. A model that fails or answers nothing
 * usable is TEMPLATE_SOURCE_REWRITE_ERROR; a server without a model says how to configure one, as every AI route.
 */
import { knownError } from "@gatehouse/shared";
import { z } from "zod";
import { storableText } from "../../fields/text.ts";
import { defineRoute } from "../../http/route.ts";
import { StatusError } from "../../http/status-error.ts";
import { generateAnswer } from "./query.ts";

/** The whole answer when it is one fenced code block (```tsx … ```), else the answer itself. */
export function sourceFromAnswer(answer: string): string {
  const fenced = /^\s*```[A-Za-z]*[^\S\n]*\n([\s\S]*?)\n```\s*$/.exec(answer);
  return (fenced ? fenced[1]! : answer).trim();
}

export const rewriteTemplateRoutes = [
  defineRoute({
    method: "POST",
    path: "/internal/rewrite-template-source",
    summary: "Rewrite an email template's TSX source with the AI helper (for a draft made from it)",
    tags: ["AI"],
    access: ["admin"],
    request: { body: z.strictObject({ template_tsx_source: storableText(200_000).pipe(z.string().min(1)) }) },
    response: { body: z.object({ tsx_source: z.string() }) },
    handler: async ({ deps, auth, body, clientIp }) => {
      let text: string;
      try {
        const answer = await generateAnswer(deps, auth, clientIp, {
          route: "generate",
          systemPrompt: "rewrite-template-source",
          tools: [],
          messages: [{ role: "user", content: body.template_tsx_source }],
        });
        text = answer.finalText;
      } catch (error) {
        // Not configured, or the owner's rate limit: those answers stay as every AI route gives them; a failed
        // model call (502) is the rewrite's failure.
        if (error instanceof StatusError && error.status !== 502) throw error;
        throw knownError("TEMPLATE_SOURCE_REWRITE_ERROR", {
          error: error instanceof Error ? error.message : String(error),
        });
      }
      const source = sourceFromAnswer(text);
      if (!source) {
        throw knownError("TEMPLATE_SOURCE_REWRITE_ERROR", { error: "The AI model answered with no source." });
      }
      return { body: { tsx_source: source } };
    },
  }),
];
