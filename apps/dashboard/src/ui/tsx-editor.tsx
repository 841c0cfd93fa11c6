/**
 * A TSX code editor on CodeMirror 6. Loaded with import() by code-editor.tsx, so CodeMirror stays out of the
 * dashboard's first bundle. Colours come from the dashboard's variables, so it follows the light/dark toggle.
 */
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import { javascript } from "@codemirror/lang-javascript";
import { bracketMatching, HighlightStyle, indentOnInput, syntaxHighlighting } from "@codemirror/language";
import { EditorState, type Extension, StateEffect, StateField } from "@codemirror/state";
import {
  Decoration,
  type DecorationSet,
  drawSelection,
  EditorView,
  highlightActiveLine,
  highlightActiveLineGutter,
  keymap,
  lineNumbers,
} from "@codemirror/view";
import { tags } from "@lezer/highlight";
import { useEffect, useRef } from "react";

export type TsxEditorProps = {
  value: string;
  onChange: (value: string) => void;
  /** A line to mark as the one in error (1-based), or null. */
  errorLine?: number | null;
  label: string;
};

const highlight = HighlightStyle.define([
  { tag: [tags.keyword, tags.moduleKeyword, tags.controlKeyword], color: "var(--code-keyword)" },
  { tag: [tags.string, tags.special(tags.string)], color: "var(--code-string)" },
  { tag: [tags.number, tags.bool, tags.null], color: "var(--code-number)" },
  { tag: [tags.comment, tags.lineComment, tags.blockComment], color: "var(--muted)", fontStyle: "italic" },
  { tag: [tags.typeName, tags.className], color: "var(--code-type)" },
  { tag: [tags.tagName, tags.angleBracket], color: "var(--code-tag)" },
  { tag: tags.attributeName, color: "var(--code-attribute)" },
  {
    tag: [tags.function(tags.variableName), tags.function(tags.propertyName)],
    color: "var(--code-function)",
  },
  { tag: tags.propertyName, color: "var(--code-property)" },
]);

const chrome = EditorView.theme({
  "&": { color: "var(--text)", backgroundColor: "var(--panel)", fontSize: "13px", height: "100%" },
  ".cm-content": { fontFamily: "var(--mono)", caretColor: "var(--text)" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.55" },
  ".cm-gutters": {
    backgroundColor: "var(--panel-2)",
    color: "var(--muted)",
    borderRight: "1px solid var(--border)",
  },
  ".cm-activeLine": { backgroundColor: "color-mix(in srgb, var(--accent-soft) 45%, transparent)" },
  ".cm-activeLineGutter": { backgroundColor: "var(--accent-soft)", color: "var(--text)" },
  "&.cm-focused": { outline: "none" },
  "&.cm-focused .cm-cursor": { borderLeftColor: "var(--text)" },
  "&.cm-focused .cm-selectionBackground, .cm-selectionBackground": {
    backgroundColor: "color-mix(in srgb, var(--accent) 25%, transparent)",
  },
  ".cm-matchingBracket": { backgroundColor: "var(--accent-soft)", outline: "1px solid var(--accent)" },
  ".cm-error-line": { backgroundColor: "var(--danger-soft)" },
});

/** The line in error, as a line decoration the page sets from the last render. */
const setErrorLine = StateEffect.define<number | null>();
const errorLineField = StateField.define<DecorationSet>({
  create: () => Decoration.none,
  update(decorations, transaction) {
    let next = decorations.map(transaction.changes);
    for (const effect of transaction.effects) {
      if (!effect.is(setErrorLine)) continue;
      const line = effect.value;
      const doc = transaction.state.doc;
      next =
        line !== null && line >= 1 && line <= doc.lines
          ? Decoration.set([Decoration.line({ class: "cm-error-line" }).range(doc.line(line).from)])
          : Decoration.none;
    }
    return next;
  },
  provide: (field) => EditorView.decorations.from(field),
});

export default function TsxEditor(props: TsxEditorProps) {
  const host = useRef<HTMLDivElement>(null);
  const view = useRef<EditorView | null>(null);
  const onChange = useRef(props.onChange);
  onChange.current = props.onChange;

  // biome-ignore lint/correctness/useExhaustiveDependencies: the view is made once; later props are pushed in below
  useEffect(() => {
    const extensions: Extension[] = [
      lineNumbers(),
      highlightActiveLineGutter(),
      highlightActiveLine(),
      history(),
      drawSelection(),
      indentOnInput(),
      bracketMatching(),
      javascript({ jsx: true, typescript: true }),
      syntaxHighlighting(highlight),
      keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
      chrome,
      errorLineField,
      // tabindex: the editable text is what Tab reaches inside CodeMirror's scroller (which takes tabindex -1), and
      // axe counts only elements with one as the keyboard's way into a scroll region (scrollable-region-focusable).
      EditorView.contentAttributes.of({
        "aria-label": props.label,
        "data-testid": "code-editor",
        tabindex: "0",
      }),
      EditorView.updateListener.of((update) => {
        if (update.docChanged) onChange.current(update.state.doc.toString());
      }),
    ];
    const created = new EditorView({
      parent: host.current!,
      state: EditorState.create({ doc: props.value, extensions }),
    });
    view.current = created;
    return () => {
      created.destroy();
      view.current = null;
    };
  }, []);

  // A value set from outside (a reset, a reload) replaces the document; typing does not come back through here.
  useEffect(() => {
    const current = view.current;
    if (!current || current.state.doc.toString() === props.value) return;
    current.dispatch({ changes: { from: 0, to: current.state.doc.length, insert: props.value } });
  }, [props.value]);

  useEffect(() => {
    view.current?.dispatch({ effects: setErrorLine.of(props.errorLine ?? null) });
  }, [props.errorLine]);

  return <div className="code-editor" ref={host} />;
}
