import fs from 'node:fs';
import path from 'node:path';
import { PACK_KINDS, type PackKind } from '../packs/kinds';
import { MAX_PACK_BYTES, parsePackText } from '../packs/parse';
import { RelayError } from '../protocol/errors';
import { listHosts } from '../relay/discovery';
import { type FolderReport, readPackFolder } from '../relay/pack-folder';
import { packsDir } from '../relay/paths';
import { didYouMean, spoken, UsageError } from './usage';
import { cliCommand, cliForm, quoteArg } from '../relay/invocation';
import { withCliForm } from '../protocol/identity';

/**
 * `comet-relay selectors add FILE | list | remove NAME | show NAME`: the person's side of data packs
 * (selector sets and thread readers). A pack is checked with the same schema the extension uses
 * before it goes into the folder; the running hosts see the folder change and hand the new packs to
 * the browser, which uses them at once.
 */
export interface SelectorsIo {
  out(text: string): void;
}

export function runSelectors(home: string, args: string[], options: { json?: boolean }, io: SelectorsIo): number {
  const [action, target, ...extra] = args;
  if (extra.length > 0) throw usageError(`unexpected argument "${extra[0]}" (a file name with a space must be quoted: '${[target, ...extra].join(' ')}')`);
  switch (action) {
    case 'add':
      if (!target) throw usageError(`name the file: ${cliCommand('selectors add FILE')}`);
      return add(home, target, io);
    case 'list':
    case undefined:
      return list(home, options.json === true, io);
    case 'remove':
      if (!target) throw usageError(`name the set: ${cliCommand('selectors remove NAME')} (\`${cliCommand('selectors list')}\` shows them)`);
      return remove(home, target, io);
    case 'show':
      if (!target) throw usageError(`name the set: ${cliCommand('selectors show NAME')} (\`${cliCommand('selectors list')}\` shows them)`);
      return show(home, target, io);
    default:
      throw usageError(`unknown action "${action}"`, didYouMean(action, ['add', 'list', 'remove', 'show']));
  }
}

function usageError(problem: string, suggestion = ''): UsageError {
  return new UsageError(`${problem}.${suggestion} Usage: ${spoken('comet-relay selectors')} add FILE | list [--json] | remove NAME | show NAME.`);
}

const kindOf = (kind: string): PackKind | undefined => (Object.hasOwn(PACK_KINDS, kind) ? PACK_KINDS[kind] : undefined);
const fileNameFor = (kind: string, name: string) => `${kind}.${name}.json`;

function add(home: string, file: string, io: SelectorsIo): number {
  const from = path.resolve(file);
  let text: string;
  try {
    const stat = fs.statSync(from);
    if (!stat.isFile()) throw new Error('it is not a file');
    if (stat.size > MAX_PACK_BYTES) throw new Error(`it is ${stat.size} bytes; a selector set or reader may be at most ${MAX_PACK_BYTES} bytes`);
    text = fs.readFileSync(from, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new RelayError('CONFIG_ERROR', `There is no file ${from}: check the name and the folder. Nothing was added.`);
    throw new RelayError('CONFIG_ERROR', `Cannot read ${file}: ${(error as Error).message}. Nothing was added.`);
  }
  const startFrom = `\`${cliCommand('selectors show gen-b-2026-10-live')}\` prints a valid set to start from (\`${cliCommand('selectors list')}\` names the built-in readers to start a reader from).`;
  // Broken JSON has no field to fix: say where it breaks, as an editor would find it.
  const broken = jsonBreak(text);
  if (broken) {
    throw new RelayError(
      'CONFIG_ERROR',
      `${file} was not added: it is not valid JSON (${broken}). Correct it there and run \`${cliCommand(`selectors add ${quoteArg(file)}`)}\` again; ${startFrom}`,
    );
  }
  const checked = parsePackText(text);
  if (!checked.ok) {
    throw new RelayError(
      'CONFIG_ERROR',
      `${file} was not added: it is not a valid selector set or reader (the built-in ones keep working).\n` +
        checked.problems.map((p) => `  ${withCliForm(p, cliForm())}`).join('\n') +
        `\nFix ${checked.problems.length === 1 ? 'that field' : 'those fields'} and run \`${cliCommand(`selectors add ${quoteArg(file)}`)}\` again; ${startFrom}`,
    );
  }
  const kind = kindOf(checked.kind) as PackKind;
  const dir = packsDir(home);
  const target = path.join(dir, fileNameFor(checked.kind, checked.name));
  const before = readPackFolder(home);
  const twin = before.packs.find((p) => p.kind === checked.kind && p.name === checked.name && p.source !== target);
  if (twin) {
    throw new RelayError(
      'CONFIG_ERROR',
      `${twin.source} already adds the ${kind.noun} "${checked.name}", so ${file} was not added. Remove that one first ` +
        `(\`${cliCommand(`selectors remove ${quoteArg(checked.name)}`)}\`) or give the new one another name.`,
    );
  }
  const replacing = fs.existsSync(target);
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Written beside the target and renamed over it: a watching host never reads half a file (the
  // leading dot keeps the folder reader away from the temporary file).
  const temp = path.join(dir, `.${path.basename(target)}.${process.pid}.tmp`);
  fs.writeFileSync(temp, `${JSON.stringify(checked.pack, null, 2)}\n`, { mode: 0o600 });
  fs.renameSync(temp, target);

  const builtIn = kind.builtInNames().includes(checked.name);
  const lines = [`${replacing ? 'Updated' : 'Added'} the ${kind.noun} ${checked.name}: ${target}`, kind.afterAdd(checked.name, builtIn)];
  lines.push(
    listHosts(home).length > 0
      ? `Connected browsers use it from their next call, without a reload; ${checked.kind === 'selector-set' ? `\`${cliCommand('doctor --page')}\` shows the set the Perplexity tab uses` : `\`${cliCommand('doctor')}\` names the readers in use`}.`
      : 'No browser is connected now; the next one that connects gets it.',
  );
  io.out(`${lines.join('\n')}\n`);
  return 0;
}

/** Where `text` stops being JSON (`Unexpected token } at line 3, column 1`), or undefined when it is JSON. */
function jsonBreak(text: string): string | undefined {
  try {
    JSON.parse(text);
    return undefined;
  } catch (error) {
    // Node 20 says only the offset; newer ones add "(line L column C)": said once, the same way on both.
    const message = (error as Error).message.replace(/\s*\(line \d+ column \d+\)$/, '');
    const at = /^(.*?) in JSON at position (\d+)/s.exec(message);
    if (!at) return message;
    const before = text.slice(0, Number(at[2]));
    return `${at[1]} at line ${before.split('\n').length}, column ${before.length - before.lastIndexOf('\n')}`;
  }
}

function list(home: string, json: boolean, io: SelectorsIo): number {
  const report = readPackFolder(home);
  const rows = Object.values(PACK_KINDS).flatMap((kind) => {
    const added = report.packs.filter((p) => p.kind === kind.kind);
    const addedRows = added.map((p) => ({ kind: kind.kind, name: p.name, source: p.source, about: kind.describe(kind.item(p.pack)) }));
    const builtInRows = kind
      .builtInNames()
      .map((name) => ({ kind: kind.kind, name, source: 'built-in', about: kind.describe(kind.item(kind.builtInPack(name) as { kind: string })), replacedBy: added.find((p) => p.name === name)?.source }));
    return [...addedRows, ...builtInRows];
  });
  if (json) {
    io.out(`${JSON.stringify({ folder: report.dir, packs: rows, skipped: report.skipped }, null, 2)}\n`);
    return report.skipped.length > 0 ? 1 : 0;
  }
  io.out(`Selector sets and readers added in ${report.dir}, and the built-in ones:\n`);
  for (const kind of Object.values(PACK_KINDS)) {
    io.out(`${kind.listHeading}:\n`);
    for (const row of rows.filter((r) => r.kind === kind.kind)) {
      const origin = row.source === 'built-in' ? ('replacedBy' in row && row.replacedBy ? `built-in, replaced by ${row.replacedBy}` : 'built-in') : row.source;
      io.out(`  ${row.name.padEnd(20)} ${row.about}\n  ${''.padEnd(20)} ${origin}\n`);
    }
  }
  io.out(skippedText(report));
  return report.skipped.length > 0 ? 1 : 0;
}

export function skippedText(report: FolderReport): string {
  if (report.skipped.length === 0) return '';
  const lines = report.skipped.map((s) => `  ${path.basename(s.source)}: ${s.reason}`);
  return (
    `Skipped (not used until fixed; the other sets keep working):\n${lines.join('\n')}\n` +
    `Fix a file with \`${cliCommand('selectors add FILE')}\` (it checks before installing), or remove it with \`${cliCommand('selectors remove FILENAME')}\`.\n`
  );
}

function remove(home: string, name: string, io: SelectorsIo): number {
  const report = readPackFolder(home);
  const dir = report.dir;
  // Only files inside the folder: a valid pack with that name, or a file named exactly that
  // (a broken pack cannot be named by its content). Never a path elsewhere.
  const byName = report.packs.filter((p) => p.name === name).map((p) => p.source);
  const byFile = path.basename(name) === name && report.skipped.some((s) => s.source === path.join(dir, name)) ? [path.join(dir, name)] : [];
  const files = [...new Set([...byName, ...byFile])];
  if (files.length === 0) {
    const builtIn = Object.values(PACK_KINDS).find((k) => k.builtInNames().includes(name));
    throw new RelayError(
      'CONFIG_ERROR',
      builtIn
        ? `"${name}" is a built-in ${builtIn.noun}: it cannot be removed, only replaced by adding one of the same name.`
        : `No added selector set, reader or skipped file is named "${name}" in ${dir}; \`${cliCommand('selectors list')}\` shows them.`,
    );
  }
  for (const file of files) {
    fs.rmSync(file, { force: true });
    io.out(`Removed ${file}\n`);
  }
  io.out('Connected browsers stop using it from their next call.\n');
  return 0;
}

function show(home: string, name: string, io: SelectorsIo): number {
  const added = readPackFolder(home).packs.find((p) => p.name === name);
  const pack = added?.pack ?? Object.values(PACK_KINDS).map((k) => k.builtInPack(name)).find(Boolean);
  if (!pack) throw new RelayError('CONFIG_ERROR', `No selector set or reader is named "${name}"; \`${cliCommand('selectors list')}\` shows them.`);
  io.out(`${JSON.stringify(pack, null, 2)}\n`);
  return 0;
}
