/**
 * Saves text as a file from the side panel: an `<a download>` on a blob URL, which an extension page
 * may use without the `downloads` permission (asking for one would cost every person a new warning
 * for a file they save by a click). The browser puts it where it puts downloads, or asks, as the
 * person set it.
 */
export function saveTextFile(name: string, text: string): void {
  const url = URL.createObjectURL(new Blob([text], { type: 'text/markdown;charset=utf-8' }));
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  link.hidden = true;
  document.body.append(link);
  link.click();
  link.remove();
  // The download has its bytes once started; the URL is let go after.
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}
