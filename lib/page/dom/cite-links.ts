/**
 * `[n]` citations turned into Markdown links to the n-th source (citations already linked stay): how comet_poll and
 * comet_wait give a turn's Markdown, from the thread JSON (lib/worker/threads/json-answer.ts) or from the page's ask
 * stream (lib/page/stream/stream-reading.ts) alike.
 */
export function linkCitations(markdown: string, urls: readonly (string | undefined)[]): string {
  return markdown.replace(/\[(\d{1,3})\](?!\()/g, (whole, n: string) => {
    const url = urls[Number(n) - 1];
    return url ? `[${n}](${url})` : whole;
  });
}
