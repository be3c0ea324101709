/**
 * The account's Computer options and Projects in the simulated perplexity.ai: what the page's
 * Computer settings menu offers (client/task-settings.ts) and what the web app's own JSON serves
 * (`GET /rest/models/config`, `GET /rest/projects`).
 *
 * The models config has the shape of the real bodies (lib/selectors/README.md): `models` an
 * object keyed by model id (`label`, `description`, `mode`, `provider`; Computer's have mode
 * `asi`), a `config[]` of the search models menu, and `default_models` by mode. What no real body
 * shows is our guess, marked below: Computer's modes and each model's reasoning efforts. The
 * Projects endpoint and its shape are a guess as a whole.
 *
 * The shapes differ from the Computer MCP server's `models_list` / `projects_list` on purpose:
 * the extension's reader maps one to the other through data (lib/selectors/account-json.ts).
 */

export interface SimModel {
  id: string;
  label: string;
  description: string;
  fast: boolean;
  efforts: string[];
  defaultEffort: string;
}

export const SIM_MODELS: SimModel[] = [
  { id: 'claude-sonnet-4.5', label: 'Claude Sonnet 4.5', description: 'Balanced for most tasks', fast: false, efforts: ['low', 'medium', 'high'], defaultEffort: 'high' },
  { id: 'gpt-5', label: 'GPT-5', description: 'Strong reasoning', fast: false, efforts: ['minimal', 'low', 'medium', 'high'], defaultEffort: 'medium' },
  { id: 'sonar-fast', label: 'Sonar Fast', description: 'Quick answers', fast: true, efforts: ['none'], defaultEffort: 'none' },
  {
    id: 'claude-opus-4.1-thinking',
    label: 'Claude Opus 4.1 Thinking',
    description: 'Deepest work, slowest',
    fast: false,
    efforts: ['low', 'medium', 'high', 'xhigh', 'max'],
    defaultEffort: 'high',
  },
];

export const SIM_MODES: { mode: string; label: string; model: string; effort: string }[] = [
  { mode: 'light', label: 'Light', model: 'sonar-fast', effort: 'none' },
  { mode: 'standard', label: 'Standard', model: 'claude-sonnet-4.5', effort: 'high' },
  { mode: 'high', label: 'High', model: 'gpt-5', effort: 'high' },
  { mode: 'ultra', label: 'Ultra', model: 'claude-opus-4.1-thinking', effort: 'max' },
];

export const DEFAULT_MODE = 'standard';
export const DEFAULT_MODEL = 'claude-sonnet-4.5';

/** Search models the menu offers too (mode `search`): the reader must leave them out of models_list. */
const SEARCH_MODELS = [
  { id: 'sim_best', label: 'Best', description: 'Picks a model for each question' },
  { id: 'sim_sonar', label: 'Sonar', description: 'The in-house model' },
];

/** `GET /rest/models/config?config_schema=v1`. */
export function modelsJson(): unknown {
  return {
    config_schema: 'v1',
    models: {
      ...Object.fromEntries(SEARCH_MODELS.map((m) => [m.id, { label: m.label, description: m.description, mode: 'search', provider: 'PERPLEXITY' }])),
      ...Object.fromEntries(
        SIM_MODELS.map((m) => [
          m.id,
          {
            label: m.label,
            description: m.description,
            mode: 'asi',
            provider: 'PERPLEXITY',
            // Our guesses (in no real body): how fast it is and which reasoning efforts it takes.
            is_fast: m.fast,
            reasoning_efforts: m.efforts,
            default_reasoning_effort: m.defaultEffort,
          },
        ]),
      ),
    },
    config: SEARCH_MODELS.map((m) => ({ label: m.label, description: m.description, subscription_tier: 'pro', non_reasoning_model: m.id, reasoning_model: null, is_default: m.id === 'sim_best' })),
    default_models: { search: 'sim_best', research: 'sim_research', asi: DEFAULT_MODEL },
    // Our guess (in no real body): Computer's modes, each a model and an effort.
    default_computer_mode: DEFAULT_MODE,
    computer_modes: SIM_MODES.map((m) => ({ id: m.mode, display_name: m.label, model_id: m.model, reasoning_effort: m.effort })),
  };
}

export interface SimProject {
  uuid: string;
  name: string;
  description: string;
  role: string;
  landing: string;
  knowledge: boolean;
}

const NAMED: SimProject[] = [
  { uuid: '5a1e0000-0000-4000-8000-000000000001', name: 'Market research', description: 'Competitors, pricing and market sizing.', role: 'owner', landing: 'pinned', knowledge: true },
  { uuid: '5a1e0000-0000-4000-8000-000000000002', name: 'Travel planning', description: 'Trips, bookings and itineraries.', role: 'editor', landing: 'recent', knowledge: false },
  { uuid: '5a1e0000-0000-4000-8000-000000000003', name: 'Engineering handbook', description: 'How the team builds and ships software.', role: 'viewer', landing: 'invited', knowledge: true },
];

/** 3 named projects and 52 archive ones: more than one page of 50. */
export const SIM_PROJECTS: SimProject[] = [
  ...NAMED,
  ...Array.from({ length: 52 }, (_, i) => ({
    uuid: `5a1e0000-0000-4000-8000-${String(100 + i).padStart(12, '0')}`,
    name: `Archive ${i + 1}`,
    description: `Old notes, batch ${i + 1}.`,
    role: 'owner',
    landing: 'archived',
    knowledge: false,
  })),
];

export const PROJECTS_PAGE = 50;

export function projectPath(uuid: string): string {
  return `/projects/${uuid}`;
}

/** `GET /rest/projects?search_term=&cursor=`: 50 at a time; the cursor is an offset. */
export function projectsJson(searchTerm: string | null, cursor: string | null): unknown {
  const words = (searchTerm ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const hits = SIM_PROJECTS.filter((p) => words.every((w) => `${p.name} ${p.description}`.toLowerCase().includes(w)));
  const offset = Math.max(0, Number.parseInt(cursor ?? '0', 10) || 0);
  const page = hits.slice(offset, offset + PROJECTS_PAGE);
  const next = offset + PROJECTS_PAGE < hits.length ? String(offset + PROJECTS_PAGE) : null;
  return {
    projects: page.map((p) => ({
      uuid: p.uuid,
      title: p.name,
      description: p.description,
      url: projectPath(p.uuid),
      user_role: p.role,
      landing_category: p.landing,
      knowledge_enabled: p.knowledge,
    })),
    next_cursor: next,
  };
}

/** What the sim's account has left of the modes the site limits: a count, or null where the site gives none. */
export type ModesLeft = Partial<Record<'research' | 'labs' | 'pro_search' | 'agentic_research', number | null>>;

/**
 * `GET /rest/rate-limit/status`, in the shape of the body captured on 2026-07-31 (rate-limit-status-json-…): each mode
 * `available` and `remaining_detail` (`exact` with a count, or `not_provided`). A mode with nothing set is available
 * with no count, as the capture shows most of them.
 */
export function modeLimitsJson(left: ModesLeft): unknown {
  const entry = (remaining: number | null | undefined) => ({
    available: remaining === undefined || remaining === null || remaining > 0,
    remaining_detail: typeof remaining === 'number' ? { kind: 'exact', remaining } : { kind: 'not_provided' },
  });
  const modes = ['pro_search', 'research', 'labs', 'agentic_research'] as const;
  return {
    free_queries: { available: true, remaining_detail: { kind: 'not_provided' } },
    modes: Object.fromEntries(modes.map((mode) => [mode, entry(left[mode])])),
  };
}
