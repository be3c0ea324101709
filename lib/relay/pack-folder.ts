import fs from 'node:fs';
import path from 'node:path';
import { MAX_PACK_BYTES, parsePackText } from '../packs/parse';
import { MAX_PACKS, MAX_SKIPPED, type PacksChanged, type SkippedPack } from '../protocol/packs';
import { isPackFileName, packsDir } from './paths';
import { cliCommand, cliForm } from './invocation';
import { withCliForm } from '../protocol/identity';

/**
 * The packs folder (`<home>/selectors/`): every `*.json` file in it is a data pack. Reading it never
 * throws and never stops at a bad file: a file that is not a valid pack, is too big, is not a plain
 * file, or adds a name another file already adds, is skipped with its reason, and the rest are used.
 * The host (through pack-feed.ts), `selectors list` and `doctor` all read it through here.
 */
export interface FolderPack {
  /** Absolute path of the file. */
  source: string;
  kind: string;
  name: string;
  /** The pack as validated. */
  pack: { kind: string };
}

export interface FolderReport {
  dir: string;
  packs: FolderPack[];
  skipped: SkippedPack[];
}

export function readPackFolder(home: string): FolderReport {
  const dir = packsDir(home);
  const report: FolderReport = { dir, packs: [], skipped: [] };
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter(isPackFileName).sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') report.skipped.push({ source: dir, reason: `the folder cannot be read: ${(error as Error).message}` });
    return report;
  }
  for (const name of names) {
    const source = path.join(dir, name);
    // Clipped to what the extension accepts (lib/protocol/packs.ts), so one long reason cannot void the offer.
    // A pack's problems name commands without knowing how this copy runs (lib/packs/parse.ts): said here in its form.
    const skip = (said: string) => {
      const reason = withCliForm(said, cliForm());
      report.skipped.push({ source, reason: reason.length > 2000 ? `${reason.slice(0, 1999)}…` : reason });
    };
    let text: string;
    try {
      const stat = fs.lstatSync(source);
      if (!stat.isFile()) {
        skip(`not a plain file (a folder or a link); copy the pack here with \`${cliCommand('selectors add FILE')}\``);
        continue;
      }
      if (stat.size > MAX_PACK_BYTES) {
        skip(`${stat.size} bytes; a data pack may be at most ${MAX_PACK_BYTES} bytes`);
        continue;
      }
      text = fs.readFileSync(source, 'utf8');
    } catch (error) {
      skip(`cannot be read: ${(error as Error).message}`);
      continue;
    }
    const checked = parsePackText(text);
    if (!checked.ok) {
      skip(checked.problems.join('; '));
      continue;
    }
    const twin = report.packs.find((p) => p.kind === checked.kind && p.name === checked.name);
    if (twin) {
      skip(`adds the ${checked.kind} "${checked.name}", which ${path.basename(twin.source)} already adds; remove one of them`);
      continue;
    }
    if (report.packs.length >= MAX_PACKS) {
      skip(`more than ${MAX_PACKS} packs in the folder; remove some with \`${cliCommand('selectors remove NAME')}\``);
      continue;
    }
    report.packs.push({ source, kind: checked.kind, name: checked.name, pack: checked.pack });
  }
  return report;
}

/**
 * What the host offers the extension: the packs (the worker validates them again) and the skipped files, as many as
 * an offer takes, the rest summed up in a last one: past the limit the extension would refuse the whole offer, the
 * usable packs with it (relay review R3).
 */
export function packOffer(report: FolderReport): PacksChanged {
  const { skipped } = report;
  const shown =
    skipped.length <= MAX_SKIPPED
      ? skipped
      : [...skipped.slice(0, MAX_SKIPPED - 1), { source: report.dir, reason: `${skipped.length - MAX_SKIPPED + 1} more files in it could not be used either; \`${cliCommand('selectors list')}\` names them all` }];
  return { packs: report.packs.map(({ source, pack }) => ({ source, pack })), skipped: shown };
}
