/**
 * How the AI helper's messages look: text, each tool call (collapsed, with what it was given and what it found),
 * drafts, and a proposed config change as a diff with Apply / Discard (the owner's click is the only way it is
 * applied). The shapes are what `useAiChat` builds from the AI SDK's UI message stream.
 */
import type { AiConfigProposal } from "@gatehouse/js";
import { Spinner } from "@gatehouse/react/ui";
import { useEffect, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { ActionButton, Badge } from "../../ui/components.tsx";

export type ToolPart = {
  type: "tool";
  toolCallId: string;
  toolName: string;
  input?: unknown;
  output?: unknown;
  error?: string;
};
export type ChatPart = { type: "text"; text: string } | ToolPart;
export type ChatMessage = { id: string; role: "user" | "assistant"; parts: ChatPart[]; error?: string };

const TOOL_LABELS: Record<string, string> = {
  readConfig: "Read the project config",
  searchUsers: "Searched users",
  searchTeams: "Searched teams",
  explainSignInFailure: "Looked into a sign-in",
  draftEmailTemplate: "Drafted an email template",
  draftPermissionSet: "Drafted permissions",
  proposeConfigChange: "Proposed a config change",
};

function json(value: unknown): string {
  return JSON.stringify(value, null, 2) ?? "";
}

function show(value: unknown): string {
  return value === undefined || value === null ? "(unset)" : JSON.stringify(value);
}

type ProposalOutput = {
  proposed?: boolean;
  problems?: string[];
  proposal?: { id: string; summary: string; status: string; diff: AiConfigProposal["diff"] };
};

/** The diff of a proposed change and the owner's decision; the proposal's current state is read from the server. */
function ProposalCard({ proposal }: { proposal: NonNullable<ProposalOutput["proposal"]> }) {
  const { app, refresh } = useProjectContext();
  const [status, setStatus] = useState(proposal.status);
  useEffect(() => {
    let live = true;
    app
      .getAiProposal(proposal.id)
      .then((current) => live && setStatus(current.status))
      .catch(() => {});
    return () => {
      live = false;
    };
  }, [app, proposal.id]);
  return (
    <div className="ai-proposal" data-testid="ai-proposal">
      <div className="ai-proposal-head">
        <strong>{proposal.summary}</strong>
        {status === "pending" ? <Badge tone="warning">Not applied</Badge> : null}
        {status === "applied" ? <Badge tone="success">Applied</Badge> : null}
        {status === "discarded" ? <Badge>Discarded</Badge> : null}
      </div>
      <pre className="ai-diff" data-testid="ai-diff">
        {proposal.diff.map((entry) => (
          <span key={entry.path}>
            <span className="ai-diff-path">{entry.path}</span>
            {"\n"}
            <span className="ai-diff-del">- {show(entry.before)}</span>
            {"\n"}
            <span className="ai-diff-add">+ {show(entry.after)}</span>
            {"\n"}
          </span>
        ))}
      </pre>
      {status === "pending" ? (
        <div className="ai-proposal-actions">
          <ActionButton
            small
            data-testid="ai-apply"
            success="Config change applied"
            onClick={async () => {
              setStatus((await app.applyAiProposal(proposal.id)).status);
              await refresh();
            }}
          >
            Apply
          </ActionButton>
          <ActionButton
            variant="ghost"
            small
            onClick={async () => setStatus((await app.discardAiProposal(proposal.id)).status)}
          >
            Discard
          </ActionButton>
        </div>
      ) : null}
    </div>
  );
}

function ToolCall({ part }: { part: ToolPart }) {
  const output = part.output as Record<string, unknown> | undefined;
  const proposal =
    part.toolName === "proposeConfigChange" ? (output as ProposalOutput | undefined) : undefined;
  const draft =
    part.toolName === "draftEmailTemplate"
      ? (output?.draft as { display_name: string; tsx_source: string } | undefined)
      : undefined;
  const clientSource =
    part.toolName.startsWith("createEmail") &&
    typeof (part.input as { content?: unknown })?.content === "string"
      ? (part.input as { content: string }).content
      : undefined;
  return (
    <div className="ai-tool" data-testid="ai-tool-call">
      <details>
        <summary>
          <span className="ai-tool-name">{TOOL_LABELS[part.toolName] ?? part.toolName}</span>
          {part.output === undefined && !part.error ? <Spinner /> : null}
        </summary>
        <div className="ai-tool-body">
          <div className="ai-tool-label">Asked with</div>
          <pre>{json(part.input)}</pre>
          {part.output !== undefined ? (
            <>
              <div className="ai-tool-label">Found</div>
              <pre>{json(part.output)}</pre>
            </>
          ) : null}
          {part.error ? <div className="ai-error">{part.error}</div> : null}
        </div>
      </details>
      {proposal?.proposal ? <ProposalCard proposal={proposal.proposal} /> : null}
      {proposal && proposal.proposed === false ? (
        <div className="ai-error">The change was not valid: {(proposal.problems ?? []).join("; ")}</div>
      ) : null}
      {draft ? (
        <div className="ai-draft">
          <div className="ai-tool-label">Draft: {draft.display_name} (not saved)</div>
          <pre>{draft.tsx_source}</pre>
        </div>
      ) : null}
      {clientSource ? <pre className="ai-draft">{clientSource}</pre> : null}
    </div>
  );
}

export function MessageView({ message }: { message: ChatMessage }) {
  return (
    <div className={`ai-message ${message.role}`} data-testid={`ai-message-${message.role}`}>
      {message.parts.map((part, index) =>
        part.type === "text" ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: parts only ever grow at the end
          <div key={index} className="ai-text">
            {part.text}
          </div>
        ) : (
          <ToolCall key={part.toolCallId} part={part} />
        ),
      )}
      {message.error ? <div className="ai-error">{message.error}</div> : null}
    </div>
  );
}
