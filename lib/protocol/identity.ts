/**
 * Who we are, on every hop. The extension ID is pinned by the public key below (the manifest's `key`),
 * so the native host manifest can name it before the extension is ever installed.
 * The ID is derived from the key (sha256 of the DER, first 32 hex digits mapped to a–p);
 * tests/unit/identity.test.ts checks the two agree.
 */
export const PRODUCT_NAME = 'comet-relay';
export const NATIVE_HOST_NAME = 'com.comet_relay.host';
export const EXTENSION_PUBLIC_KEY =
  'MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAr4jDSclVXqHwI6rc8VLHDXh+hG22HiUxEM+QQUA2qXTKN02mSi1nqYBV97G0BFRmaKAJ6R/p254XzOFJLwVKgx89ox7jv0HGRf+PT2pkwBC/Exks7p/vqD8eVciWV8NLXcaLo9RE7A/h4XWe5fIGv5RsSOO/uWiZR3bvFeZJom+SLcXXX2waU7pP7sZd9wf7alD7q3d1rmdUqj8DqiRewPqazxx//4MA4r0ZcLVuSoydaedENssAtQKBTP2+V7g81XjuuJzT91lk7uNcJTx7xi0lWJrUr9qWJ7ZLorMgT9qyRysf4p0jd4Qg9vj4RgG9VxFUNlOejSv7Ur3nE7na5wIDAQAB';
export const EXTENSION_ID = 'ecmkpcbekkgjknbkippgifninkcepnfa';
export const EXTENSION_ORIGIN = `chrome-extension://${EXTENSION_ID}/`;

/**
 * Bumped whenever a message on any hop changes shape. Both ends must agree exactly.
 * 2 (2026-12-02): the door a call came in by travels with it (hello, call origin), and the browser status says
 * why a Perplexity tab has no page script. A host of protocol 1 names no door, which the worker would take as
 * the public door's and refuse the tab list to a local client without saying why; the handshake says it instead.
 * An optional field whose absence each side already handles is additive and keeps the number: the welcome's
 * `command` (2026-12-04) — an older host sends none (the extension keeps its last known form), an older extension drops it;
 * and its `home` (2026-12-05), which an older host installed with --home does not send: its hints then leave the
 * folder out, as before (mixed versions only: an extension not reloaded after an update, or the reverse).
 * 3 (2026-12-05): an error's data may say `notSent` (a Computer follow-up the page refused before typing). The error
 * data is checked strictly on every hop, so a host of protocol 2 would drop the refusal's frame, and the agent would
 * wait out its call to hear "may have been sent" (day-3 review L1); the handshake says to install one version instead.
 */
export const PROTOCOL_VERSION = 3;

/**
 * Two builds of comet-relay meeting: the side on the older protocol is the one still running from before an upgrade
 * (a browser not restarted keeps its extension's worker and that worker's host; an MCP client keeps the `mcp` it
 * started), and the step is to restart that side, not to install again (review 8, skew F2–F4). Said the same way by
 * the host that refuses, and by the extension or MCP process that an older host refused with its own words.
 * `peer` is the side the host talks to, with its protocol; `host` the host's.
 */
export function protocolSkew(peer: { role: 'extension' | 'client'; protocol: number }, host: { protocol: number; version: string }): string {
  const versions = `protocol ${peer.protocol} beside the host's ${host.protocol}, comet-relay ${host.version}`;
  const reload = "reload the comet-relay extension on the browser's extensions page (or restart the browser)";
  if (peer.role === 'extension') {
    return peer.protocol < host.protocol
      ? `The comet-relay extension running in this browser is older than its host (${versions}): it is the build from before an upgrade. To end it, ${reload}.`
      : `The comet-relay host this browser starts is older than its extension (${versions}): the browser's registration runs another, older copy of comet-relay. Run install with the copy the extension was loaded from, then ${reload}.`;
  }
  // A client is an MCP server a client started, or a command (doctor, status, export): said for both (fixes review 3, 4).
  return peer.protocol < host.protocol
    ? `This comet-relay is older than the host the browser runs (${versions}): started before an upgrade, or another, older copy. Start it again from the new copy (an MCP client does so when you restart it, or its comet-relay server).`
    : `The comet-relay host the browser runs is older than this comet-relay (${versions}): the browser still runs it from before an upgrade, or its registration starts another, older copy. Reload the comet-relay extension on the browser's extensions page (or restart the browser) so that it starts the host again; if it is still older, run install with this copy and reload once more.`;
}

/** A host's refusal as the extension or MCP process says it: a protocol apart in these words, another refusal in the host's. */
export function refusalWords(role: 'extension' | 'client', refusal: { protocolVersion: number; version: string; message: string }): string {
  if (refusal.protocolVersion === PROTOCOL_VERSION) return refusal.message;
  return protocolSkew({ role, protocol: PROTOCOL_VERSION }, { protocol: refusal.protocolVersion, version: refusal.version });
}

/** The longest client name and version a hello carries; an MCP client's longer `clientInfo` is clipped to them (gateway.ts). */
export const CLIENT_NAME_MAX = 200;
export const CLIENT_VERSION_MAX = 100;

/** The longest command form a host may send (`command` in its welcome); a longer one it leaves out. */
export const CLI_FORM_MAX = 1000;
/** What a command form may not hold: a line break or any other control character. */
export const CLI_FORM_REFUSED = /[\u0000-\u001f\u007f]/;

/**
 * How this machine runs comet-relay, as a host said it: the words before a subcommand (`command`)
 * and, for an install with a state folder of its own, that folder as one word of the person's shell
 * (`home`), said after every subcommand that takes `--home`: a `doctor` or `unblock` printed without
 * it would act on the default folder, where that host never looks.
 */
export interface HostForm {
  command: string;
  home?: string;
}

/** Whether two forms say every command alike. */
export function sameHostForm(a: HostForm | undefined, b: HostForm | undefined): boolean {
  return a?.command === b?.command && a?.home === b?.home;
}

/** The subcommands that take `--home DIR` (tests/unit/cli.test.ts holds this list to lib/cli/commands.ts). */
export const HOME_COMMANDS: readonly string[] = ['mcp', 'serve', 'install', 'uninstall', 'unblock', 'doctor', 'selectors', 'token', 'status', 'config', 'capture', 'export'];

/** ` --home HOME` for `sub`, or nothing (no folder, a command without --home, or one that names it already). */
export function homeSuffix(sub: string, home: string | undefined): string {
  if (!home || !HOME_COMMANDS.includes(sub.split(' ')[0] ?? '') || /(^|\s)--home(\s|=|$)/.test(sub)) return '';
  return ` --home ${home}`;
}

/**
 * A comet-relay command as the extension says it: `sub` after the words that run comet-relay where
 * its host was installed (`form`, from the host's welcome, kept across restarts), else after
 * `comet-relay`, with the host's `--home` when it has one. The one builder of every command the
 * extension prints (page-access words, the panel, the toolbar, link faults); the Node side's is
 * `cliCommand` in lib/relay/invocation.ts.
 */
export function cliHintCommand(sub: string, form: HostForm | undefined): string {
  return `${form?.command ?? PRODUCT_NAME} ${sub}${homeSuffix(sub, form?.home)}`.trimEnd();
}

/**
 * The same command inside a sentence, in backticks; while no host has said its form (first run,
 * a host never connected) it adds how to adapt it, since `comet-relay` is on PATH only after a global install.
 */
export function cliHint(sub: string, form: HostForm | undefined): string {
  return `\`${cliHintCommand(sub, form)}\`${cliHintNote(sub, form)}`;
}

/**
 * What follows a command said without the host's form ('' once it is known); for several commands
 * at once (no `sub`), one note for all. The side panel shows it as plain text (`plain`).
 */
export function cliHintNote(sub: string | undefined, form: HostForm | undefined, plain = false): string {
  if (form) return '';
  const note = sub === undefined ? ' (or however you run comet-relay, in its place)' : ` (or however you run comet-relay, followed by \`${sub}\`)`;
  return plain ? note.replaceAll('`', '') : note;
}

/**
 * A command said without the form: a subcommand and plain words only (FILE, NAME, --flags), so text a
 * page put into an error (a quoted draft, say) is never dressed up as a command of ours.
 */
const SAID_WITHOUT_FORM =
  /`comet-relay ((?:install|uninstall|doctor|unblock|serve|capture|selectors|token|config|extension|status)(?: [\w.@=/-]+)*)`( \(or however you run comet-relay, followed by `\1`\))?/g;

/**
 * Text written where the host's form is not at hand (the page script and lib/packs, which stay
 * small and know no host; a worker room without the link) names a command as `` `comet-relay SUB` ``
 * in backticks, or as `cliHint(sub, undefined)` says it; whoever prints it or sends it on (the
 * worker for every error it sends, the panel, the host and the CLI for a pack's problems) passes it
 * through this, which says each such command as `cliHint(sub, form)`.
 */
export function withCliForm(text: string, form: HostForm | undefined): string {
  return text.replace(SAID_WITHOUT_FORM, (_all, sub: string) => cliHint(sub, form));
}
