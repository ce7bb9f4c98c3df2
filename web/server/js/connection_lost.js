// Runs in the page when BokehJS loses its websocket (the document's `connection_lost`
// event), which BokehJS itself announces only in the console: shows the banner. The change
// stays in the page ({sync: false}): there is no server left to tell.
export default function showBanner({banner}) {
  banner.setv({visible: true}, {sync: false});
}
