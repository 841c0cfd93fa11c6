/**
 * The AI helper's model: any OpenAI-compatible chat-completions endpoint (`GATEHOUSE_AI_*`), through the Vercel AI
 * SDK's OpenAI-compatible provider. Without configuration every AI route answers how to turn it on; there is no
 * canned answer anywhere.
 */
import type { LanguageModel } from "ai";
import type { AiSettings } from "../../env-services.ts";
import { StatusError } from "../../http/status-error.ts";

export const AI_NOT_CONFIGURED_MESSAGE =
  "The AI helper is not configured on this server. Set GATEHOUSE_AI_BASE_URL (any OpenAI-compatible endpoint, " +
  "e.g. https://api.openai.com/v1 or Ollama's http://localhost:11434/v1), GATEHOUSE_AI_MODEL and, if the endpoint " +
  "needs one, GATEHOUSE_AI_API_KEY, then restart the server.";

const models = new WeakMap<AiSettings, LanguageModel>();

/** The configured model, or a plain 400 saying how to configure one. */
export async function aiModelOrThrow(
  settings: AiSettings | undefined,
): Promise<{ model: LanguageModel; name: string }> {
  if (!settings) throw new StatusError(400, AI_NOT_CONFIGURED_MESSAGE);
  let model = models.get(settings);
  if (!model) {
    // Loaded with the first AI request rather than at start, like the AI SDK (query.ts).
    const { createOpenAICompatible } = await import("@ai-sdk/openai-compatible");
    const provider = createOpenAICompatible({
      name: "gatehouse-ai",
      baseURL: settings.baseUrl,
      ...(settings.apiKey ? { apiKey: settings.apiKey } : {}),
      includeUsage: true,
    });
    model = provider.chatModel(settings.model);
    models.set(settings, model);
  }
  return { model, name: settings.model };
}
