import { Spinner } from "@gatehouse/react/ui";
import { lazy, Suspense } from "react";
import type { TsxEditorProps } from "./tsx-editor.tsx";

// CodeMirror is loaded on first use, so the dashboard's first page does not carry it.
const TsxEditor = lazy(() => import("./tsx-editor.tsx"));

/** The TSX editor, with a placeholder of the same size while CodeMirror loads. */
export function CodeEditor(props: TsxEditorProps) {
  return (
    <Suspense
      fallback={
        <div className="code-editor loading" aria-busy="true" data-testid="code-editor-loading">
          <Spinner />
        </div>
      }
    >
      <TsxEditor {...props} />
    </Suspense>
  );
}
