// Copy link (as on the static page): this view's address to the clipboard, and a note that
// says so; where the browser refuses the clipboard, the note shows the link to copy by hand.
export default function copyLink({query, note, copied, shown}) {
  const text = query.text;
  const link = location.origin + location.pathname + (text ? `?${text}` : "");
  const say = (words) => {
    note.text = words;
    note.visible = true;
    clearTimeout(note.hideTimer);
    note.hideTimer = setTimeout(() => { note.visible = false; }, 8000);
  };
  const byHand = () => say(shown.replace("{link}", link));
  if (navigator.clipboard) navigator.clipboard.writeText(link).then(() => say(copied), byHand);
  else byHand();
}
