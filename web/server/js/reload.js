// The banner's Reload button: a reload starts a new session.
export default function reload() {
  globalThis.location.reload();
}
