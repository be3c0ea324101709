import { TapChannel } from '../../lib/page/stream/tap-channel';
import type { TapMessage } from '../../lib/page/stream/tap-protocol';

/**
 * The page script's end of the tap, fed by hand (what the main-world tap would post), and the ask stream's text as the
 * site frames it (`event: message` with `data: {json}`, then `end_of_stream`; NOTES §D), for the stream readers' tests.
 */
export function channel() {
  const ch = new TapChannel();
  const send = (m: TapMessage) => (ch as unknown as { receive(m: unknown): void }).receive(m);
  return { ch, send };
}

export const frame = (body: object) => `event: message\r\ndata: ${JSON.stringify(body)}\r\n\r\n`;
export const END = 'event: end_of_stream\r\ndata: {}\r\n\r\n';

/** An answer in the 2026-08-04 shape: a workflow_root whose answer item holds `chunks`. */
export const text = (chunks: string[], more: object = {}) => ({
  intended_usage: 'workflow_root',
  workflow_block: { steps: [{ title: 'Searching the web', items: [] }, { title: '', items: [{ type: 'WORKFLOW_ITEM_TEXT', payload: { text_payload: { variant: 'answer', text: '', chunks, ...more } } }] }] },
});
