// ESLint for the hand-written JavaScript: the page (bridge.js, a classic script), its module
// worker, the Panel server's page scripts and the Node scripts of the build and the tests. `make lint` runs it.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["static/**/*.js"],
    languageOptions: { sourceType: "script", globals: { ...globals.browser, Bokeh: "readonly" } },
  },
  {
    files: ["static/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.worker } },
  },
  {
    // the Panel server's scripts: Bokeh CustomJS modules, run in the page
    files: ["web/server/js/*.js"],
    languageOptions: { sourceType: "module", globals: { ...globals.browser } },
  },
  {
    files: ["web/**/*.mjs"],
    languageOptions: { sourceType: "module", globals: { ...globals.node } },
  },
  {
    rules: {
      "no-unused-vars": ["error", { args: "after-used", argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      "prefer-const": "error",
      "no-var": "error",
    },
  },
];
