import type { Mode } from '../../lib/selectors';

/**
 * What each page captured from the live perplexity.ai (the folder COMET_REAL_PERPLEXITY names) shows of the
 * mode and the Computer toggle, read by eye from the capture and said in `why`. One table for the unit test
 * of the composer's readers (tests/unit/real-composer.test.ts) and for comet_mode through the whole chain
 * (tests/e2e/real-captures.spec.ts). A new capture gets its row here (the unit test fails until it has one).
 */
export interface CaptureMode {
  file: string;
  /** The mode the page shows, or null where it shows none (then nobody may say one). */
  mode: Mode | null;
  /** The mode the menu trigger names, pressed or not. */
  trigger: Mode | null;
  /** The Computer toggle's pressed state, or null where the page does not show it. */
  computer: boolean | null;
  why: string;
}

export const CAPTURE_MODES: readonly CaptureMode[] = [
  { file: 'composer-zero-state-WebMCP-2026-08.html', mode: 'standard', trigger: 'standard', computer: false,
    why: 'first wrapper: aria-haspopup=menu, #pplx-icon-search, "Search", aria-pressed=true; second: #pplx-icon-custom-computer, "Computer", aria-pressed=false' },
  { file: 'search-thread-page-WebMCP-2026-08.html', mode: 'standard', trigger: 'standard', computer: false,
    why: 'first wrapper: aria-haspopup=menu, "Search", aria-pressed=true (no icon kept); second: "Computer", aria-pressed=false' },
  { file: 'composer-home-typed-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html', mode: null, trigger: 'standard', computer: null,
    why: 'the trigger reads "Search" and the toggle "Computer", but the trimmed capture kept aria-pressed on neither (and no icon): nothing says which is on' },
  { file: 'mode-menu-open-Perplexity-Comet-MCP-jcalderonzumba-2026-09-24.html', mode: 'standard', trigger: 'standard', computer: false,
    why: 'first wrapper: "Search", aria-pressed=true, no aria-haspopup, data-state=open; second: "Computer", aria-pressed=false; the open menu checks Search' },
  { file: 'composer-typed-excerpt-MrJ55-comet-mcp-2026-08-07.html', mode: null, trigger: null, computer: null,
    why: 'the editor alone: no mode control is in the excerpt' },
  { file: 'search-thread-one-turn-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html', mode: 'standard', trigger: 'standard', computer: false,
    why: 'first wrapper: #pplx-icon-search, "Search", aria-pressed=true, no aria-haspopup; second: #pplx-icon-custom-computer, "Computer", aria-pressed=false' },
  { file: 'search-thread-several-turns-Perplexity-Comet-MCP-jcalderonzumba-2026-09-26.html', mode: 'deep-research', trigger: 'deep-research', computer: false,
    why: 'first wrapper: #pplx-icon-telescope, "Deep research", aria-pressed=true; second: "Computer", aria-pressed=false' },
  { file: 'thread-page-main-excerpt-AI-conversations-in-json-2026-09-27.html', mode: 'standard', trigger: 'standard', computer: false,
    why: 'French page: first wrapper #pplx-icon-search, "Recherche", aria-pressed=true; second: #pplx-icon-custom-computer, "Computer" (not translated), aria-pressed=false' },
  { file: 'search-thread-page-obsidian-AI-exporter-2026-02-02.html', mode: 'standard', trigger: null, computer: null,
    why: 'Feb 2026: a radiogroup of modes, Search aria-checked=true; no Computer toggle' },
  { file: 'search-thread-page-obsidian-AI-exporter-2026-02-27.html', mode: null, trigger: null, computer: null,
    why: 'the follow-up composer shows no mode control' },
  { file: 'deep-research-thread-page-obsidian-AI-exporter-2026-02-27.html', mode: null, trigger: null, computer: null,
    why: 'the follow-up composer shows no mode control' },
  { file: 'deep-research-thread-page-obsidian-AI-exporter-2026-02-02.html', mode: null, trigger: null, computer: null,
    why: 'the report container only: no composer, no mode control' },
  { file: 'answer-citation-excerpt-MrJ55-comet-mcp-2026-08-07.html', mode: null, trigger: null, computer: null, why: 'an answer excerpt: no composer' },
  { file: 'answer-citations-excerpt-SaysWho-2026-08-11.html', mode: null, trigger: null, computer: null, why: 'an answer excerpt: no composer' },
  { file: 'sidebar-top-excerpt-AI-conversations-in-json-2026-09-27.html', mode: null, trigger: null, computer: null, why: 'the sidebar: no composer' },
];
