import type { AccountJsonReader } from './thread-schema';

/**
 * The account's Computer options, its Projects and its recent threads, in the web app's own JSON
 * (fetched by a Perplexity tab, read by the service worker).
 *
 * Version 2 reads the models from the real `GET /rest/models/config` (bodies captured 2026-07-14
 * with `config_schema=v1` and 2026-08-01 from `/v2`; lib/selectors/README.md): `models` is an
 * object keyed by model id, each with `label`, `description`, `mode` (`asi` for Computer's), and
 * `default_models.asi` names Computer's default. Neither body holds Computer modes
 * (light/standard/…) or reasoning efforts: those paths (`computer_modes`, `reasoning_efforts`) stay
 * our guess, as do `is_fast` (the bodies show "fast" only in an id and label, `…_fast`, "… Fast"),
 * the Projects endpoint and its shape.
 * `GET /rest/thread/list_recent` is on the public record (no body seen).
 */
export const accountJson2026: AccountJsonReader = {
  name: 'account-json-2026-12',
  version: 3,
  checked: '2026-12-06 (real /rest/models/config bodies of 2026-07-14 and 2026-08-01, /rest/rate-limit/status of 2026-07-31; the simulated site)',
  headers: { 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' },
  listRecent: {
    path: '/rest/thread/list_recent',
    threads: ['threads[]', '[]'],
    uuid: ['uuid'],
    slug: ['slug'],
    modeType: ['mode_type', 'mode'],
    threadPath: { computer: '/computer/tasks/{uuid}', search: '/search/{slug}' },
  },
  models: {
    path: '/rest/models/config',
    query: { config_schema: 'v1' },
    defaultMode: ['default_computer_mode'],
    modes: ['computer_modes[]'],
    mode: { mode: ['id', 'mode'], model: ['model_id', 'model'], effort: ['reasoning_effort', 'effort'] },
    models: ['models{}[value.mode=asi]'],
    model: {
      id: ['key'],
      label: ['value.label'],
      description: ['value.description'],
      fast: ['value.is_fast'],
      efforts: ['value.reasoning_efforts[]'],
      defaultEffort: ['value.default_reasoning_effort'],
    },
    defaultModel: ['default_models.asi'],
  },
  projects: {
    path: '/rest/projects',
    searchParam: 'search_term',
    cursorParam: 'cursor',
    list: ['projects[]'],
    nextCursor: ['next_cursor'],
    project: {
      uuid: ['uuid', 'project_uuid'],
      url: ['url', 'project_url'],
      name: ['title', 'name'],
      description: ['description'],
      role: ['user_role', 'role'],
      landingCategory: ['landing_category'],
      knowledgeEnabled: ['knowledge_enabled'],
    },
  },
  // GET /rest/rate-limit/status (capture rate-limit-status-json-perplexity-client-2026-07-31.json): each mode's
  // `available` and `remaining_detail` (`{kind: "exact", remaining}` or `{kind: "not_provided"}`). `research` is Deep
  // research (the models config of 2026-08-01 gives `pplx_alpha` the label "Deep research" and `mode: "research"`; the
  // research thread of 2026-07-31 is `search_mode` RESEARCH with `display_model` pplx_alpha). `labs`, and `studio` (the
  // February 2026 composer's value for "Create files and apps"), as Create: our guess, no capture ties them. Its
  // `pro_search` and `agentic_research` are no comet_mode mode that we know of: never asked about.
  modeLimits: {
    path: '/rest/rate-limit/status',
    modes: { 'deep-research': ['modes.research'], create: ['modes.labs', 'modes.studio'] },
    available: ['available'],
    remaining: ['remaining_detail.remaining'],
  },
};

/** Built-in account readers, newest first. */
export const ACCOUNT_JSON_READERS: readonly AccountJsonReader[] = [accountJson2026];
