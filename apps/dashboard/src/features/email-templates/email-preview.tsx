import type { EmailPreview, EmailPreviewOptions } from "@gatehouse/js";
import { type ReactNode, useEffect, useRef, useState } from "react";
import { useProjectContext } from "../../project-context.tsx";
import { Card } from "../../ui/components.tsx";
import { describeEmailError, type RenderProblem, renderProblemOf } from "./email-common.ts";

/** How long typing must pause before the preview is rendered again. */
const DEBOUNCE_MS = 350;

type PreviewState =
  | { status: "rendering" }
  | { status: "ready" }
  | { status: "problem"; problem: RenderProblem }
  | { status: "failed"; message: string };

/**
 * Renders `request` as you type (debounced, answers to older requests dropped) and shows it in a sandboxed iframe
 * (`sandbox=""`: no scripts, no same-origin access), at desktop or phone width. A render failure is shown in
 * words with its line, over the last preview that worked; `onProblemLine` tells the editor which line to mark.
 */
export function EmailPreviewCard(props: {
  request: EmailPreviewOptions;
  /** Controls of the toolbar the page adds (the theme to preview in). */
  controls?: ReactNode;
  noun: "template" | "theme";
  onProblemLine: (line: number | null) => void;
}) {
  const { app } = useProjectContext();
  const [width, setWidth] = useState<"desktop" | "mobile">("desktop");
  const [preview, setPreview] = useState<EmailPreview | null>(null);
  const [state, setState] = useState<PreviewState>({ status: "rendering" });
  const generation = useRef(0);
  const onProblemLine = useRef(props.onProblemLine);
  onProblemLine.current = props.onProblemLine;
  const key = JSON.stringify(props.request);

  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` is the request, serialised
  useEffect(() => {
    const mine = ++generation.current;
    setState({ status: "rendering" });
    const timer = setTimeout(async () => {
      try {
        const rendered = await app.renderEmailPreview(JSON.parse(key) as EmailPreviewOptions);
        if (mine !== generation.current) return;
        setPreview(rendered);
        setState({ status: "ready" });
        onProblemLine.current(null);
      } catch (error) {
        if (mine !== generation.current) return;
        const problem = renderProblemOf(error);
        if (problem) {
          setState({ status: "problem", problem });
          onProblemLine.current(problem.line);
        } else {
          setState({ status: "failed", message: describeEmailError(error, props.noun) });
          onProblemLine.current(null);
        }
      }
    }, DEBOUNCE_MS);
    return () => clearTimeout(timer);
  }, [app, key]);

  return (
    <Card
      title="Preview"
      testId="preview-card"
      actions={
        <fieldset className="segmented" aria-label="Preview width">
          {(["desktop", "mobile"] as const).map((option) => (
            <button
              key={option}
              type="button"
              className={width === option ? "active" : ""}
              aria-pressed={width === option}
              onClick={() => setWidth(option)}
            >
              {option === "desktop" ? "Desktop" : "Mobile"}
            </button>
          ))}
        </fieldset>
      }
    >
      <div className="stack">
        {props.controls}
        <div className="preview-meta">
          <span className="muted small">Subject</span>
          <strong data-testid="preview-subject">{preview?.subject ?? "—"}</strong>
          <span className="preview-status small muted" data-testid="preview-status" data-state={state.status}>
            {state.status === "rendering" ? "Rendering…" : state.status === "ready" ? "Up to date" : ""}
          </span>
        </div>
        {state.status === "problem" ? (
          <div className="alert danger render-problem" role="alert" data-testid="render-error">
            <div style={{ minWidth: 0 }}>
              <strong>This {props.noun} does not render.</strong> {state.problem.summary}
              {state.problem.detail ? <pre>{state.problem.detail}</pre> : null}
            </div>
          </div>
        ) : null}
        {state.status === "failed" ? (
          <div className="alert danger" role="alert" data-testid="render-error">
            {state.message}
          </div>
        ) : null}
        <div className={`preview-frame ${width}${state.status === "ready" ? "" : " stale"}`}>
          {preview ? (
            <iframe
              title="Email preview"
              sandbox=""
              srcDoc={preview.html}
              data-testid="email-preview"
              style={{ width: width === "mobile" ? 390 : "100%" }}
            />
          ) : (
            <div className="preview-empty muted">
              {state.status === "rendering" ? "Rendering the first preview…" : "Nothing rendered yet."}
            </div>
          )}
        </div>
      </div>
    </Card>
  );
}
