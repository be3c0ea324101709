import { stateDirPath as defaultStateDir } from '../../relay/paths';
import type { ResolvedSystem } from '../system';
import { firstNotRoots, type SudoPerson } from './owned-remove';

/**
 * `sudo comet-relay unblock` (or `uninstall`) typed by hand. Most Linux distributions' sudo sets HOME
 * to root's, so the default state folder would be root's: the record of what unblock wrote would land
 * where the person's own `unblock --undo` and `uninstall` never look, and the policy would stay in
 * force with nobody to take it back (review 2026-12-05 #5); uninstall would take back root's install
 * (its launcher, the browsers' manifests under root's home) and leave the person's. Under sudo, with
 * no --home and no COMET_RELAY_HOME, both act on the home and state folder of the person who ran sudo
 * (SUDO_USER), found from the system's user list, only when every folder of it that exists is a real
 * folder of theirs: root writes or removes nothing through a link or in another user's folder
 * (unblock's saveRecord gives what it creates to that person). When that cannot be settled, the
 * command refuses and says what to run instead; it never guesses.
 */

export interface SudoState {
  /** The person's home folder (their browsers' folders are under it). */
  home: string;
  /** The person's default state folder, where their own comet-relay reads the record. */
  stateDir: string;
  /** One line saying where the command acts and why, printed before anything is done. */
  note: string;
}

/** Passed to the person's refusal: the command that prints the right sudo command with their folder. */
export interface SudoContext {
  command: 'unblock' | 'uninstall';
  /** The person's command without sudo (it prints the sudo command with their --home). */
  plainCommand: string;
}

/** What each command would do with root's home, what it did not do, what its run without sudo does, and where it acts instead. */
const WORDS = {
  unblock: {
    wrong: (user: string) => `so its record would land in root's state folder, where ${user}'s own \`unblock --undo\` and \`uninstall\` never look`,
    undone: 'Nothing was written.',
    instead: 'it prints the sudo command with your state folder as --home. Or pass --home DIR yourself.',
    acts: 'writes',
    note: (user: string, dir: string) =>
      `note: running as root under sudo for ${user}: the record of what unblock writes goes to ${dir} (${user}'s, where their own \`unblock --undo\` and \`uninstall\` look), not to root's. If ${user} keeps comet-relay's state elsewhere (COMET_RELAY_HOME, XDG_STATE_HOME), pass that folder with --home.`,
  },
  uninstall: {
    wrong: (user: string) => `so it would take back root's install, not ${user}'s`,
    undone: 'Nothing was removed.',
    // Not --home: as root it would still look in root's browser folders for the manifests.
    instead: "it takes back your install, and for an unblock's policy, which needs root, prints the sudo command to run.",
    acts: 'removes',
    note: (user: string, dir: string, home: string, plain: string) =>
      `note: running as root under sudo for ${user}: uninstall takes back ${user}'s install (its state folder ${dir} and the browser folders under ${home}), not root's. If ${user} keeps comet-relay's state elsewhere (COMET_RELAY_HOME, XDG_STATE_HOME, XDG_CONFIG_HOME), run \`${plain}\` as ${user}, without sudo.`,
  },
} as const;

/**
 * The person's state folder when this runs as root under sudo with root's own HOME; undefined when
 * it does not (not root, no sudo, HOME already the person's, a folder chosen by --home or
 * COMET_RELAY_HOME). Throws, with what to do, when it cannot be settled.
 */
export function sudoStateDir(sys: ResolvedSystem, uid: number | undefined, context: SudoContext): SudoState | undefined {
  const person = sys.env.COMET_RELAY_HOME ? undefined : sudoPerson(sys, uid);
  if (!person) return undefined;
  const { user, uid: personUid } = person;
  // HOME kept by sudo (macOS, `sudo -E`, env_keep): the default folder is the person's already.
  if (ownerOf(sys, sys.homedir) === personUid) return undefined;

  const words = WORDS[context.command];
  const refuse = (why: string) =>
    new Error(
      `${context.command} runs as root under sudo (for ${user}) with root's home (${sys.homedir}), ${words.wrong(user)}; and ${why}. ${words.undone} Run \`${context.plainCommand}\` without sudo: ${words.instead}`,
    );
  const home = passwdHome(sys, user, personUid);
  if (!home) throw refuse(`${user}'s home folder is not in /etc/passwd`);
  const dir = defaultStateDir({ env: {}, platform: sys.platform, homedir: home });
  // Every folder from the home down that exists already: a real folder, the person's.
  for (let at = home; ; ) {
    let stat: ReturnType<NonNullable<ResolvedSystem['fs']['lstatSync']>>;
    try {
      stat = (sys.fs.lstatSync as NonNullable<ResolvedSystem['fs']['lstatSync']>)(at);
    } catch {
      break; // missing from here down: saveRecord creates it, as the person's
    }
    if (stat.isSymbolicLink() || !stat.isDirectory()) throw refuse(`${at} is a link or not a folder (root ${words.acts} nothing through it)`);
    if (stat.uid !== personUid) throw refuse(`${at} belongs to user ${stat.uid}, not to ${user} (user ${personUid})`);
    if (at === dir) break;
    const rel = sys.path.relative(at, dir).split(sys.path.sep)[0] as string;
    at = sys.path.join(at, rel);
  }
  return { home, stateDir: dir, note: words.note(user, dir, home, context.plainCommand) };
}

/**
 * The person this runs as root for under sudo (SUDO_USER, SUDO_UID), or undefined when it does not:
 * not root, no sudo, sudo for root itself, Windows.
 */
export function sudoPerson(sys: ResolvedSystem, uid: number | undefined): SudoPerson | undefined {
  // Without lstat (a test's fake file system) no folder's owner can be told: nothing to settle.
  if (uid !== 0 || sys.platform === 'win32' || !sys.fs.lstatSync) return undefined;
  const user = sys.env.SUDO_USER;
  const personUid = Number(sys.env.SUDO_UID);
  if (!user || user === 'root' || !Number.isInteger(personUid) || personUid === 0) return undefined;
  return { user, uid: personUid };
}

/**
 * `sudo comet-relay uninstall --home DIR` (or with COMET_RELAY_HOME kept by sudo): the state folder is
 * the one given, but the browsers' folders are still HOME's, root's with most sudo setups. Root takes
 * back an install whose state folder is root's own (its registrations are in root's browser folders);
 * for a folder of the person's, or anybody's but root's, it would look for the registrations in the
 * wrong browser folders and remove files in that person's folders as root, so it refuses. The
 * person's own run, without sudo, takes their install back and prints the sudo command for an
 * unblock's policy, the one part that needs root. Returns the refusal, or undefined.
 */
export function sudoHomeRefusal(sys: ResolvedSystem, person: SudoPerson, dir: string, how: '--home' | 'COMET_RELAY_HOME', plainCommand: string): string | undefined {
  const foreign = firstNotRoots(sys, dir);
  if (!foreign) return undefined;
  const whose = foreign.uid === person.uid ? person.user : `user ${foreign.uid}`;
  const what = foreign.link ? `${foreign.at} is a link of ${whose}'s` : `${foreign.at} belongs to ${whose}`;
  return `uninstall runs as root under sudo (for ${person.user}) with the state folder ${dir} (${how}), which is not root's: ${what}. Root takes back only an install of its own this way; for ${person.user}'s it would look for the browsers' registrations under ${sys.homedir}, not ${person.user}'s home, and remove ${person.user}'s files as root. Nothing was removed. Run \`${plainCommand}\` without sudo: ${WORDS.uninstall.instead}`;
}

function ownerOf(sys: ResolvedSystem, file: string): number | undefined {
  try {
    return sys.fs.lstatSync?.(file).uid;
  } catch {
    return undefined;
  }
}

/** The home folder /etc/passwd gives `user` with `uid`, if it names one (an absolute path). */
function passwdHome(sys: ResolvedSystem, user: string, uid: number): string | undefined {
  let text: string;
  try {
    text = sys.fs.readFileSync('/etc/passwd', 'utf8');
  } catch {
    return undefined;
  }
  for (const line of text.split('\n')) {
    const fields = line.split(':');
    if (fields[0] === user && Number(fields[2]) === uid && fields[5]?.startsWith('/')) return sys.path.resolve(fields[5]);
  }
  return undefined;
}
