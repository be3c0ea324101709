/**
 * Saves text as a file from the side panel: an `<a download>` on a blob URL, which an extension page
 * may use without the `downloads` permission (asking for one would cost every person a new warning
 * for a file they save by a click). The browser puts it where it puts downloads, or asks, as the
 * person set it.
 */
export function saveTextFile(name: string, text: string, type = 'text/markdown;charset=utf-8', doc: Document = document): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const link = doc.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  doc.body.append(link);
  link.click();
  link.remove();
  // The download has its bytes once started; the URL is let go after.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
