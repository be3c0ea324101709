import type { AccountJsonReader } from './thread-schema';

/**
 * The account's Computer options, its Projects and its recent threads, in the web app's own JSON
 * (fetched by a Perplexity tab, read by the service worker). `GET /rest/thread/list_recent` is on
 * the public record (it lists uuid, title, status, mode_type…); the models and projects endpoints
 * and every shape below are our guesses, checked 2026-12-01 only against the simulated site.
 */
export const accountJson2026: AccountJsonReader = {
  name: 'account-json-2026-12',
  version: 1,
  checked: '2026-12-01 (simulated site; list_recent from unofficial clients up to 2026-08)',
  headers: { 'x-app-apiclient': 'default', 'x-app-apiversion': '2.18' },
  listRecent: {
    path: '/rest/thread/list_recent',
    threads: ['threads[]', '[]'],
    uuid: ['uuid'],
    slug: ['slug'],
    modeType: ['mode_type'],
    threadPath: { computer: '/computer/tasks/{uuid}', search: '/search/{slug}' },
  },
  models: {
    path: '/rest/computer/models',
    defaultMode: ['default_computer_mode', 'default_mode'],
    modes: ['computer_modes[]', 'modes[]'],
    mode: { mode: ['id', 'mode'], model: ['model_id', 'model'], effort: ['reasoning_effort', 'effort'] },
    models: ['models[]'],
    model: {
      id: ['model_id', 'id'],
      label: ['display_name', 'label'],
      description: ['subtitle', 'description'],
      fast: ['is_fast', 'fast'],
      efforts: ['supported_efforts[]', 'efforts[]'],
      defaultEffort: ['default_effort'],
    },
    defaultModel: ['default_model_id', 'default_model'],
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
};

/** Built-in account readers, newest first. */
export const ACCOUNT_JSON_READERS: readonly AccountJsonReader[] = [accountJson2026];
