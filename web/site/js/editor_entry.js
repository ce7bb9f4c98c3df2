// Integrator Lab: the entry of the page's code editor bundle (static/vendor/editor.js).
//
// web/site/editor.py bundles this with esbuild into one classic script, CodeMirror 6 and its
// Python mode included (npm devDependencies, pinned), so the site hosts the editor itself.
// It only publishes a small API; static/js/editor.js uses it when it is there and falls back
// to a plain <textarea> when it is not.
import { EditorView, basicSetup } from "codemirror";
import { python } from "@codemirror/lang-python";

window.IntegratorLabCodeEditor = {
  /** A Python editor with line numbers and highlighting in `parent`. */
  create(parent, text, onChange) {
    const view = new EditorView({
      doc: text,
      parent,
      extensions: [
        basicSetup,
        python(),
        EditorView.updateListener.of((update) => { if (update.docChanged) onChange(); }),
        EditorView.contentAttributes.of({ "aria-label": "Python code of your method" }),
      ],
    });
    return {
      view,
      get: () => view.state.doc.toString(),
      set: (value) => view.dispatch({
        changes: { from: 0, to: view.state.doc.length, insert: value },
      }),
      /** Put the cursor on line `n` (1-based) and show it: where an error is. */
      goToLine: (n) => {
        const doc = view.state.doc;
        const line = doc.line(Math.min(Math.max(1, n), doc.lines));
        view.dispatch({ selection: { anchor: line.from, head: line.to }, scrollIntoView: true });
      },
    };
  },
};
