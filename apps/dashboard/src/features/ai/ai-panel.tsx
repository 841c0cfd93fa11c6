/**
 * The AI helper: a button in the top bar of every project page opens a side panel where the owner asks about the
 * project. Answers stream in (the AI SDK's UI message stream through `app.streamAi`), tool calls show as they
 * happen, proposed config changes show their diff with an Apply button, and each conversation is saved per
 * project (the history list). Without a model on the server it says how to configure one.
 */
import type { AiStatus, GatehouseAdminApp } from "@gatehouse/js";
import { Button } from "@gatehouse/react/ui";
import { type FormEvent, useCallback, useEffect, useRef, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { errorMessage, useAsync } from "../../ui/hooks.ts";
import { Icon } from "../../ui/icons.tsx";
import { type ChatMessage, type ChatPart, MessageView, type ToolPart } from "./ai-messages.tsx";
import "./ai-panel.css";

let counter = 0;
const localId = () => `m${Date.now().toString(36)}${(counter++).toString(36)}`;

/** What the model is sent of the conversation: each message's text (tool results are looked up again). */
function toModelMessages(messages: ChatMessage[]) {
  return messages
    .map((message) => ({
      role: message.role,
      content: message.parts
        .filter((part): part is Extract<ChatPart, { type: "text" }> => part.type === "text")
        .map((part) => part.text)
        .join("\n"),
    }))
    .filter((message) => message.content.trim() !== "");
}

/** Stored conversations keep each message's parts as content; a plain string is a text part. */
function fromStored(stored: { id: string; role: "user" | "assistant"; content: unknown }[]): ChatMessage[] {
  return stored.map((message) => ({
    id: message.id,
    role: message.role,
    parts: Array.isArray(message.content)
      ? (message.content as ChatPart[])
      : [{ type: "text", text: String(message.content) }],
  }));
}

function useAiChat(app: GatehouseAdminApp, onSaved: () => void) {
  const [messages, setMessages] = useState<ChatMessage[]>([]);
  const [conversationId, setConversationId] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);

  const update = (id: string, change: (message: ChatMessage) => ChatMessage) =>
    setMessages((all) => all.map((message) => (message.id === id ? change(message) : message)));

  const send = async (question: string) => {
    const user: ChatMessage = { id: localId(), role: "user", parts: [{ type: "text", text: question }] };
    const assistant: ChatMessage = { id: localId(), role: "assistant", parts: [] };
    const history = [...messages, user];
    setMessages([...history, assistant]);
    setBusy(true);
    let final: ChatMessage = assistant;
    const apply = (change: (message: ChatMessage) => ChatMessage) => {
      final = change(final);
      update(assistant.id, () => final);
    };
    try {
      const stream = await app.streamAi({ messages: toModelMessages(history) });
      for await (const chunk of stream) {
        if (chunk.type === "text-start") {
          apply((m) => ({ ...m, parts: [...m.parts, { type: "text", text: "" }] }));
        } else if (chunk.type === "text-delta") {
          const delta = String(chunk.delta ?? "");
          apply((m) => {
            const parts = [...m.parts];
            const last = parts.at(-1);
            if (last?.type === "text") parts[parts.length - 1] = { ...last, text: last.text + delta };
            else parts.push({ type: "text", text: delta });
            return { ...m, parts };
          });
        } else if (chunk.type === "tool-input-available") {
          const part: ToolPart = {
            type: "tool",
            toolCallId: String(chunk.toolCallId),
            toolName: String(chunk.toolName),
            input: chunk.input,
          };
          apply((m) => ({ ...m, parts: [...m.parts, part] }));
        } else if (chunk.type === "tool-output-available" || chunk.type === "tool-output-error") {
          apply((m) => ({
            ...m,
            parts: m.parts.map((part) =>
              part.type === "tool" && part.toolCallId === chunk.toolCallId
                ? chunk.type === "tool-output-available"
                  ? { ...part, output: chunk.output }
                  : { ...part, error: String(chunk.errorText ?? "The tool failed.") }
                : part,
            ),
          }));
        } else if (chunk.type === "error") {
          apply((m) => ({ ...m, error: String(chunk.errorText ?? "The model failed to answer.") }));
        }
      }
    } catch (error) {
      apply((m) => ({ ...m, error: errorMessage(error) }));
    } finally {
      setBusy(false);
    }
    // Saved with each message's parts, so a reopened conversation shows its tool calls and proposals again.
    const stored = [...history, final].map((message) => ({
      id: message.id,
      role: message.role,
      content: message.role === "user" ? (message.parts[0] as { text: string }).text : message.parts,
    }));
    try {
      if (conversationId) await app.saveAiConversationMessages(conversationId, stored);
      else {
        const created = await app.createAiConversation({ title: question.slice(0, 80), messages: [] });
        await app.saveAiConversationMessages(created.id, stored);
        setConversationId(created.id);
      }
      onSaved();
    } catch {
      // The answer stays on screen; only the history misses it.
    }
  };

  const open = async (id: string | null) => {
    if (id === null) {
      setConversationId(null);
      setMessages([]);
      return;
    }
    const conversation = await app.getAiConversation(id);
    setConversationId(conversation.id);
    setMessages(fromStored(conversation.messages));
  };

  return { messages, conversationId, busy, send, open };
}

function NotConfigured({ status }: { status: AiStatus }) {
  return (
    <div className="ai-off" data-testid="ai-not-configured">
      <h3>The AI helper is off on this server</h3>
      <p>
        It answers with any OpenAI-compatible model you choose. Set these variables where the server runs and
        restart it:
      </p>
      <pre>
        {`GATEHOUSE_AI_BASE_URL=https://api.openai.com/v1
GATEHOUSE_AI_API_KEY=sk-…
GATEHOUSE_AI_MODEL=gpt-4o-mini`}
      </pre>
      <p>Or a model on your own machine, e.g. Ollama:</p>
      <pre>
        {`GATEHOUSE_AI_BASE_URL=http://localhost:11434/v1
GATEHOUSE_AI_MODEL=llama3.1`}
      </pre>
      {status.howToConfigure ? <p className="muted">{status.howToConfigure}</p> : null}
    </div>
  );
}

const SUGGESTIONS = [
  "Which sign-in methods are on?",
  "Why can't bob@example.com sign in?",
  "Draft a welcome email template",
];

function ChatPanel({ onClose }: { onClose: () => void }) {
  const { app, project } = useProjectContext();
  const status = useAsync(() => app.getAiStatus(), [app]);
  const history = useAsync(() => app.listAiConversations(), [app]);
  const chat = useAiChat(app, () => void history.reload());
  const [draft, setDraft] = useState("");
  const [showHistory, setShowHistory] = useState(false);
  const end = useRef<HTMLDivElement>(null);
  const input = useRef<HTMLTextAreaElement>(null);

  // biome-ignore lint/correctness/useExhaustiveDependencies: scroll whenever the messages change
  useEffect(() => {
    end.current?.scrollIntoView({ block: "end" });
  }, [chat.messages]);
  useEffect(() => input.current?.focus(), []);

  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    const question = draft.trim();
    if (!question || chat.busy) return;
    setDraft("");
    void chat.send(question);
  };

  return (
    <aside className="ai-panel" aria-label="AI helper" data-testid="ai-panel">
      <header className="ai-panel-head">
        <Icon name="sparkle" />
        <strong>AI helper</strong>
        <span className="muted ai-project">{project.displayName}</span>
        <span style={{ flex: 1 }} />
        {status.data?.configured ? (
          <>
            <Button
              variant="ghost"
              small
              data-testid="ai-history"
              onClick={() => setShowHistory(!showHistory)}
            >
              History
            </Button>
            <Button
              variant="ghost"
              small
              data-testid="ai-new-chat"
              onClick={() => {
                setShowHistory(false);
                void chat.open(null);
              }}
            >
              New chat
            </Button>
          </>
        ) : null}
        <Button variant="ghost" small aria-label="Close" onClick={onClose}>
          <Icon name="x" />
        </Button>
      </header>
      {status.data && !status.data.configured ? (
        <NotConfigured status={status.data} />
      ) : showHistory ? (
        <div className="ai-history" data-testid="ai-history-list">
          {(history.data ?? []).length === 0 ? <p className="muted">No saved conversations yet.</p> : null}
          {(history.data ?? []).map((conversation) => (
            <div key={conversation.id} className="ai-history-item">
              <button
                type="button"
                className={`ai-history-open${conversation.id === chat.conversationId ? " active" : ""}`}
                onClick={async () => {
                  await chat.open(conversation.id);
                  setShowHistory(false);
                }}
              >
                <span>{conversation.title}</span>
                <span className="muted">{conversation.updatedAt.toLocaleString()}</span>
              </button>
              <Button
                variant="ghost"
                small
                aria-label={`Delete ${conversation.title}`}
                onClick={async () => {
                  await app.deleteAiConversation(conversation.id);
                  if (conversation.id === chat.conversationId) await chat.open(null);
                  await history.reload();
                }}
              >
                <Icon name="x" />
              </Button>
            </div>
          ))}
        </div>
      ) : (
        <>
          <div className="ai-messages" data-testid="ai-messages">
            {chat.messages.length === 0 ? (
              <div className="ai-empty">
                <p>
                  Ask about this project: its config, users and teams, why someone cannot sign in. The helper
                  only reads; changes it suggests wait for your Apply.
                </p>
                {SUGGESTIONS.map((suggestion) => (
                  <button
                    key={suggestion}
                    type="button"
                    className="ai-suggestion"
                    onClick={() => setDraft(suggestion)}
                  >
                    {suggestion}
                  </button>
                ))}
              </div>
            ) : null}
            {chat.messages.map((message) => (
              <MessageView key={message.id} message={message} />
            ))}
            {chat.busy ? <div className="muted ai-thinking">Thinking…</div> : null}
            <div ref={end} />
          </div>
          <form className="ai-input" onSubmit={submit}>
            <textarea
              ref={input}
              value={draft}
              rows={2}
              placeholder="Ask about this project…"
              aria-label="Question"
              data-testid="ai-input"
              onChange={(event) => setDraft(event.target.value)}
              onKeyDown={(event) => {
                if (event.key === "Enter" && !event.shiftKey) submit(event);
              }}
            />
            <Button type="submit" data-testid="ai-send" disabled={chat.busy || !draft.trim()}>
              Send
            </Button>
          </form>
        </>
      )}
    </aside>
  );
}

/** The top bar's button; the panel stays open across the project's pages. */
export function AiHelperButton() {
  const [open, setOpen] = useState(false);
  const close = useCallback(() => setOpen(false), []);
  useEffect(() => {
    if (!open) return;
    const onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") close();
    };
    document.addEventListener("keydown", onKey);
    return () => document.removeEventListener("keydown", onKey);
  }, [open, close]);
  return (
    <>
      <Button
        variant="ghost"
        small
        data-testid="ai-helper-button"
        aria-expanded={open}
        onClick={() => setOpen(!open)}
      >
        <Icon name="sparkle" /> AI helper
      </Button>
      {open ? <ChatPanel onClose={close} /> : null}
    </>
  );
}
