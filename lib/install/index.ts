/**
 * Installing comet-relay on a machine: native messaging registration per browser and OS,
 * a doctor that follows every link, MCP client configurations and the HTTP token.
 *
 * Every function takes `{ env, platform, homedir, fs }` (and `exec` where it runs `reg.exe`),
 * defaulting to the real process, so tests never touch the real home directory.
 *
 * CLI mapping (lib/cli/main.ts):
 *   install   [--browser B|all] [--user-data-dir DIR] [--home DIR]  → install({ browsers, userDataDir, home, cliPath })
 *   uninstall [--browser B|all] [--user-data-dir DIR] [--home DIR] [--purge] → uninstall(...)
 *   doctor    [--page] [--browser B|all] [--user-data-dir DIR] [--home DIR] → doctor({ ..., queryStatus, queryPage }); print formatDoctor(r); exit r.exitCode
 *   config <client> [--npx] [--home DIR]                             → clientConfig(client, { npx, home, token }).text
 *   config agent-api [--public-url URL]                              → agentApiConfig({ serverUrl, allowedTools, actingTools }).text
 *   token                                                            → ensureToken(stateDir)
 *   extension [--path]                                               → checkExtensionFolder(packageCopy())
 *   unblock [--browser B] [--dry-run] [--undo] [--yes] [--all-extensions] → unblock(...) / undoUnblock(...) (lib/cli/unblock-command.ts)
 */
export { type AgentApiConfig, type AgentApiOptions, agentApiConfig, PUBLIC_URL_PLACEHOLDER } from './agent-api';
export { BROWSER_DATA, BROWSERS, type Browser, browserExecutableCandidates, findBrowserExecutable, isBrowser, isBrowserInstalled, parseBrowsers, registryKey, userDataDirs } from './browsers';
export { CLIENTS, type ClientConfig, type ClientConfigOptions, type ConfigSnippet, clientConfig, DEFAULT_HTTP_URL, isClientName, type McpClientName, type StdioCommand, stdioCommand } from './client-config';
export { type DoctorCheck, type DoctorOptions, type DoctorReport, doctor, formatDoctor } from './doctor';
export { buildManifest, type HostManifest, hostLogPath, launcherPath, launcherScript, parseLauncher } from './host-manifest';
export {
  type InstallOptions,
  type InstallReport,
  install,
  installCommand,
  manifestLocations,
  resolveState,
  type TargetReport,
  type UninstallOptions,
  type UninstallReport,
  uninstall,
} from './install';
export { type CopyKind, checkExtensionFolder, type ExtensionFolder, extensionIdFromKey, type PackageCopy, packageCopy, rebuildHint, volatileCopyNote } from './package-copy';
export { defaultCliPath, type ExecFn, type ExecResult, type FsLike, type SystemOptions } from './system';
export { formatPageReport } from './page-report';
export { ensureToken, readToken, rotateToken } from './token';
export { type ManifestCheck, verifyManifest } from './verify';
export { type CometSwitchResult, entryFor, PERPLEXITY_HOSTS, prepareCometStart, type UnblockOptions, type UnblockReport, unblock, undoUnblock } from './unblock';
export { COMET_FACTS, FACTS_CHECKED, POLICY_PLACES } from './comet-facts';
