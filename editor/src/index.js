// The in-app skill editor: CodeMirror 6 set up for a skill's files, behind a small API that
// ui/editor.js uses (declared by hand in ui/types/editor.d.ts). No knowledge of drafts or
// commands here: text in, text out, diagnostics by line.
//
// The app's content security policy allows no <style> element (`style-src 'self'`). CodeMirror
// puts its styles in through style-mod, which writes a <style> element into a document but a
// constructed stylesheet (adoptedStyleSheets, CSSOM, outside CSP) into a shadow root. So each
// editor lives in a shadow root of its own host element; the page's CSS custom properties
// (colours, fonts) still reach it, as they cross shadow boundaries.

import { Annotation, Compartment, EditorState } from "@codemirror/state";
import {
  EditorView, crosshairCursor, drawSelection, dropCursor, highlightActiveLine, highlightActiveLineGutter,
  highlightSpecialChars, keymap, lineNumbers, rectangularSelection,
} from "@codemirror/view";
import { defaultKeymap, history, historyKeymap, indentWithTab } from "@codemirror/commands";
import {
  HighlightStyle, StreamLanguage, bracketMatching, foldGutter, foldKeymap, indentOnInput, syntaxHighlighting,
} from "@codemirror/language";
import { highlightSelectionMatches, search, searchKeymap } from "@codemirror/search";
import { lintGutter, lintKeymap, setDiagnostics } from "@codemirror/lint";
import { closeBrackets, closeBracketsKeymap } from "@codemirror/autocomplete";
import { markdown } from "@codemirror/lang-markdown";
import { yaml, yamlFrontmatter } from "@codemirror/lang-yaml";
import { python } from "@codemirror/lang-python";
import { javascript } from "@codemirror/lang-javascript";
import { shell } from "@codemirror/legacy-modes/mode/shell";
import { tags } from "@lezer/highlight";
import { languageOf } from "./language.js";

export { languageOf };

/** The CodeMirror language support for a file at `path` starting with `text`. */
function languageSupport(path, text) {
  const firstLine = text.slice(0, Math.max(0, text.indexOf("\n")) || text.length);
  switch (languageOf(path, firstLine)) {
    case "markdown": return yamlFrontmatter({ content: markdown() });
    case "yaml": return yaml();
    case "python": return python();
    case "shell": return StreamLanguage.define(shell);
    case "javascript": return javascript();
    case "typescript": return javascript({ typescript: true });
    case "text": return [];
  }
  return [];
}

// Colours from the page's variables (ui/style.css), so light and dark follow the app.
const highlight = HighlightStyle.define([
  { tag: tags.heading, fontWeight: "bold", color: "var(--accent)" },
  { tag: tags.strong, fontWeight: "bold" },
  { tag: tags.emphasis, fontStyle: "italic" },
  { tag: tags.strikethrough, textDecoration: "line-through" },
  { tag: [tags.link, tags.url], color: "var(--hl-constant)", textDecoration: "underline" },
  { tag: [tags.comment, tags.meta, tags.processingInstruction], color: "var(--hl-comment)" },
  { tag: [tags.keyword, tags.operatorKeyword, tags.controlKeyword, tags.definitionKeyword, tags.moduleKeyword], color: "var(--hl-keyword)" },
  { tag: [tags.string, tags.special(tags.string), tags.monospace, tags.regexp], color: "var(--hl-string)" },
  { tag: [tags.number, tags.bool, tags.null, tags.atom, tags.constant(tags.name)], color: "var(--hl-constant)" },
  { tag: [tags.propertyName, tags.definition(tags.variableName), tags.function(tags.variableName), tags.labelName], color: "var(--hl-entity)" },
  { tag: [tags.typeName, tags.className, tags.namespace, tags.standard(tags.name)], color: "var(--hl-support)" },
  { tag: tags.invalid, color: "var(--error)" },
]);

const theme = EditorView.theme({
  "&": {
    position: "absolute", top: "0", left: "0", right: "0", bottom: "0",
    color: "var(--text)", backgroundColor: "var(--panel)", fontSize: "13px",
  },
  "&.cm-focused": { outline: "none" },
  ".cm-scroller": { fontFamily: "var(--mono)", lineHeight: "1.5" },
  ".cm-gutters": { backgroundColor: "var(--bg)", color: "var(--muted)", borderRight: "1px solid var(--line)" },
  ".cm-activeLine": { backgroundColor: "rgb(127 127 127 / 0.07)" },
  ".cm-activeLineGutter": { backgroundColor: "rgb(127 127 127 / 0.12)" },
  ".cm-content": { caretColor: "var(--text)" },
  ".cm-cursor, .cm-dropCursor": { borderLeftColor: "var(--text)" },
  "&.cm-focused > .cm-scroller > .cm-selectionLayer .cm-selectionBackground, .cm-selectionBackground, .cm-content ::selection":
    { backgroundColor: "var(--accent-soft)" },
  ".cm-matchingBracket": { outline: "1px solid var(--accent)", backgroundColor: "transparent" },
  ".cm-searchMatch": { backgroundColor: "var(--warn-soft)", outline: "1px solid var(--warn)" },
  ".cm-panels": { backgroundColor: "var(--bg)", color: "var(--text)", fontFamily: "system-ui, sans-serif" },
  ".cm-panels.cm-panels-bottom": { borderTop: "1px solid var(--line)" },
  ".cm-panel input, .cm-panel button": { font: "inherit", color: "inherit" },
  ".cm-textfield": { backgroundColor: "var(--panel)", border: "1px solid var(--line)", borderRadius: "4px" },
  ".cm-button": { backgroundImage: "none", backgroundColor: "var(--panel)", border: "1px solid var(--line)", borderRadius: "4px" },
  ".cm-tooltip": { backgroundColor: "var(--panel)", color: "var(--text)", border: "1px solid var(--line)" },
  ".cm-diagnosticAction": { backgroundColor: "var(--accent)", color: "var(--panel)" },
});

/** Marks a change made through the API (open, setText), which is not the user's typing. */
const fromApi = Annotation.define();

/**
 * Puts an editor into `parent`.
 * @param {HTMLElement} parent
 * @param {{ text?: string, path?: string, readOnly?: boolean, onChange?: (text: string) => void,
 *   phrases?: Record<string, string> }} [options]
 */
export function createEditor(parent, options = {}) {
  const { onChange = () => {}, phrases = {} } = options;
  const language = new Compartment();
  const readOnly = new Compartment();
  let ro = Boolean(options.readOnly);
  let path = options.path || "";
  /** Each file's state (text, undo history, selection) while another one is open. */
  const states = new Map();

  const stateFor = (text, filePath) => EditorState.create({
    doc: text,
    extensions: [
      lineNumbers(), foldGutter(), lintGutter(), highlightActiveLineGutter(),
      highlightSpecialChars(), history(), drawSelection(), dropCursor(),
      EditorState.allowMultipleSelections.of(true), indentOnInput(), bracketMatching(), closeBrackets(),
      rectangularSelection(), crosshairCursor(), highlightActiveLine(), highlightSelectionMatches(),
      search({ top: true }),
      syntaxHighlighting(highlight),
      EditorView.lineWrapping,
      theme,
      EditorState.phrases.of(phrases),
      language.of(languageSupport(filePath, text)),
      readOnly.of([EditorState.readOnly.of(ro), EditorView.editable.of(!ro)]),
      keymap.of([...closeBracketsKeymap, ...defaultKeymap, ...searchKeymap, ...historyKeymap, ...foldKeymap, ...lintKeymap, indentWithTab]),
      EditorView.updateListener.of((u) => {
        if (u.docChanged && !u.transactions.some((tr) => tr.annotation(fromApi))) onChange(u.state.doc.toString());
      }),
    ],
  });

  const host = document.createElement("div");
  host.className = "cm-host";
  parent.append(host);
  const shadow = host.attachShadow({ mode: "open" });
  const view = new EditorView({ state: stateFor(options.text || "", path), parent: shadow, root: shadow });

  return {
    /** Opens file `filePath` holding `text`; its undo history is kept when it was open before
     *  with the same text. */
    open(filePath, text) {
      states.set(path, view.state);
      const kept = states.get(filePath);
      path = filePath;
      view.setState(kept && kept.doc.toString() === text ? kept : stateFor(text, filePath));
    },
    /** Replaces the open file's text (a reload): one undoable step, not reported as typing. */
    setText(text) {
      if (text === view.state.doc.toString()) return;
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, annotations: fromApi.of(true) });
    },
    getText: () => view.state.doc.toString(),
    path: () => path,
    /** Makes the editor read-only or editable again. */
    setReadOnly(value) {
      ro = Boolean(value);
      view.dispatch({ effects: readOnly.reconfigure([EditorState.readOnly.of(ro), EditorView.editable.of(!ro)]) });
    },
    /**
     * Shows problems on their lines (1-based; null or out of range: the first or last line).
     * @param {{ line: number | null, severity: "error" | "warning" | "info", message: string,
     *   actions?: { name: string, run: () => void }[] }[]} list
     */
    setDiagnostics(list) {
      const doc = view.state.doc;
      const diagnostics = list.map((d) => {
        const line = doc.line(Math.min(Math.max(1, d.line || 1), doc.lines));
        return {
          from: line.from, to: line.to, severity: d.severity, message: d.message,
          actions: (d.actions || []).map((a) => ({ name: a.name, apply: () => a.run() })),
        };
      });
      view.dispatch(setDiagnostics(view.state, diagnostics));
    },
    /** Scrolls to line `n` (1-based) and puts the cursor there. */
    goToLine(n) {
      const doc = view.state.doc;
      const line = doc.line(Math.min(Math.max(1, n), doc.lines));
      view.dispatch({ selection: { anchor: line.from }, effects: EditorView.scrollIntoView(line.from, { y: "center" }) });
      view.focus();
    },
    focus: () => view.focus(),
    destroy() {
      view.destroy();
      host.remove();
      states.clear();
    },
  };
}
