import { z } from 'zod';
import { ReaderPaths, SameOriginPath } from '../thread-schema';

/**
 * The schema of an ask stream reader (lib/selectors/stream/ask-stream.ts): where the page's own
 * answer stream is, how it is framed and where each fact sits in its frames. A pack of kind
 * `ask-stream-reader` replaces the built-in one (lib/packs/kinds.ts); the page script imports only
 * the type.
 */
const Paths = ReaderPaths;
const Words = z.array(z.string().min(1).max(200)).min(1).readonly();

export const AskStreamReaderSchema = z.looseObject({
  name: z.string().regex(/^ask-stream-\d{4}-\d{2}$/),
  version: z.number().int().min(1),
  checked: z.string(),
  /** Same-origin paths the page POSTs to: its answer stream, and Stop's call. */
  endpoints: z.object({ ask: z.array(SameOriginPath).min(1).max(8).readonly(), terminate: z.array(SameOriginPath).min(1).max(8).readonly() }),
  /** SSE event names: a frame, and the stream's last word. */
  events: z.object({ message: Words, end: Words }),
  /** What the page sent (the POST's JSON body). */
  request: z.object({ query: Paths, frontendUuid: Paths, lastBackendUuid: Paths }),
  /** Relative to one frame (the `data:` JSON of a message event). */
  frame: z.object({
    blocks: Paths,
    /** Relative to one block: the block's name (`intended_usage`). */
    usage: Paths,
    /** Relative to one block: a patch to the block's field (`diff_block`: `field`, `patches`). */
    diff: Paths,
    diffField: Paths,
    diffPatches: Paths,
    final: Paths,
    status: Paths,
    frontendUuid: Paths,
    backendUuid: Paths,
    query: Paths,
    slug: Paths,
    threadUuid: Paths,
  }),
  /** Relative to the stream's blocks as applied so far, keyed by name (`{ "ask_text": { "markdown_block": … } }`). */
  blocks: z.object({ answer: Paths, answerChunks: Paths, steps: Paths, sources: Paths }),
  /** Relative to one source. */
  source: z.object({ title: Paths, url: Paths }),
  values: z.object({ completed: Words }),
});
export type AskStreamReader = z.infer<typeof AskStreamReaderSchema>;
