// The page's address follows the dashboard's view: its query (the static page's keys, made by
// integrator_lab.server.links) replaces the address's, with no new history entry, so that a
// reload or a copied address opens the same view.
export default function followLink({query}) {
  const text = query.text;
  const url = location.pathname + (text ? `?${text}` : "") + location.hash;
  if (url !== location.pathname + location.search + location.hash) {
    history.replaceState(history.state, "", url);
  }
}
