// EN | 日本語 on the Panel dashboard: the page opens again in the chosen language, with the
// view it shows (its query, integrator_lab.server.links) and that language's key.
export default function switchLanguage({languages, query}, switcher) {
  const params = new URLSearchParams(query.text);
  params.set("lang", languages[switcher.active]);
  location.assign(`${location.pathname}?${params}${location.hash}`);
}
