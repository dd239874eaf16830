// The API of the editor bundle (ui/vendor/editor.js, built from editor/src/index.js by
// scripts/setup; not type-checked itself). ui/editor_cm.js loads it and casts it to this.

/** A quick fix offered on a problem's line. */
export type EditorAction = { name: string; run: () => void };
/** A problem shown on a line of the open file (1-based; null: the first line). */
export type EditorDiagnostic = {
  line: number | null; severity: "error" | "warning" | "info"; message: string; actions?: Array<EditorAction>;
};
/** One editor on the page. */
export interface Editor {
  /** Opens file `path` holding `text` (its undo history kept if it was open with that text). */
  open(path: string, text: string): void;
  /** Replaces the open file's text (a reload), without reporting it as typing. */
  setText(text: string): void;
  getText(): string;
  path(): string;
  setReadOnly(readOnly: boolean): void;
  setDiagnostics(list: Array<EditorDiagnostic>): void;
  goToLine(line: number): void;
  focus(): void;
  destroy(): void;
}
export type EditorOptions = {
  text?: string; path?: string; readOnly?: boolean; onChange?: (text: string) => void;
  /** CodeMirror's own words (the search panel's), translated: English phrase → text. */
  phrases?: Record<string, string>;
};
/** What the bundle exports. */
export interface EditorModule {
  createEditor(parent: HTMLElement, options?: EditorOptions): Editor;
  languageOf(path: string, firstLine?: string): "markdown" | "yaml" | "python" | "shell" | "javascript" | "typescript" | "text";
}
