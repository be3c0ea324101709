import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

/**
 * The house rules, read from the product's own imports (lib/, entrypoints/, components/; type
 * imports, re-exports and dynamic imports included): no import circle, nothing importing a layer
 * above its own; and, in every source folder of the repository, rooms small enough to find one's way
 * in. lib/README.md says the same in words.
 */

const ROOT = path.resolve(__dirname, '../..');
const PRODUCT = ['lib', 'entrypoints', 'components'];

/** lib's rooms, bottom to top: a room imports only rooms of a lower layer (or itself). */
const LIB_LAYERS: Record<string, number> = {
  'lib/protocol': 0,
  'lib/selectors': 1,
  'lib/config': 1,
  'lib/packs': 2,
  'lib/page': 3,
  'lib/panel': 3,
  'lib/worker': 4,
  'lib/relay': 5,
  'lib/mcp': 6,
  'lib/install': 6,
  'lib/cli': 7,
};

/** Sub-rooms of lib/page, lib/worker and components, bottom to top ('.' is the folder itself); equal layers may not import each other. */
const SUB_LAYERS: Record<string, Record<string, number>> = {
  'lib/page': { dom: 0, checkpoints: 1, answer: 2, stream: 3, composer: 3, '.': 4, threads: 5, kits: 5 },
  'lib/worker': { browser: 0, link: 1, threads: 1, calls: 2, panel: 3, '.': 4 },
  components: { common: 0, agents: 1, settings: 1, page: 1, '.': 2 },
};

/** The most source files a folder may hold of its own (its subfolders' files are theirs). */
const FOLDER_LIMIT = 16;

/**
 * Test folders over the limit, each with why it stays flat. The test fails when one comes under the
 * limit (drop it from here then), so the list cannot outlive its reasons.
 */
const FLAT_TEST_FOLDERS: Record<string, string> = {
  'tests/unit': 'one file per subject, run by name (npx vitest run tests/unit/x.test.ts); ~100, a split would only move the list',
  'tests/e2e': 'one spec per feature, run one at a time by name (npx playwright test tests/e2e/x.spec.ts)',
  'tests/support': "the fakes and harnesses every test imports as ../support/x: a split rewrites hundreds of imports in every open branch",
  'tests/bench': 'one file per bench letter beside its runner (run.ts, env, stats, table), picked by letter',
};

/** Folders that hold no sources of ours: packages, build output, test output, captured pages. */
const NOT_SOURCE = new Set(['node_modules', 'dist', 'test-results', 'playwright-report', 'fixtures']);

/** Every folder of the repository with source files of its own → how many. */
function folderCounts(dir = '.', counts = new Map<string, number>()): Map<string, number> {
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    if (entry.name.startsWith('.') || NOT_SOURCE.has(entry.name)) continue;
    const rel = dir === '.' ? entry.name : `${dir}/${entry.name}`;
    if (entry.isDirectory()) folderCounts(rel, counts);
    else if (/\.(tsx?|mts|cts|[cm]?js)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) counts.set(dir, (counts.get(dir) ?? 0) + 1);
  }
  return counts;
}

/** The side panel's components run in an extension page: they see the protocol and lib/panel only. */
const COMPONENTS_MAY_IMPORT = ['components', 'lib/protocol', 'lib/panel'];

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true })) {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) out.push(...sourceFiles(rel));
    else if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) out.push(rel);
  }
  return out;
}

const files = PRODUCT.flatMap(sourceFiles).sort();
const known = new Set(files);

function resolve(from: string, spec: string): string | null {
  if (!spec.startsWith('.')) return null; // a package ('wxt/browser', 'zod'), not ours
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(from), spec));
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (known.has(candidate)) return candidate;
  }
  return fs.existsSync(path.join(ROOT, base)) ? null : `${base} (no such file)`; // a JSON file is not a module of ours
}

/** Every file of ours each product file imports, by any form of import. */
const graph = new Map<string, string[]>(
  files.map((file) => {
    const { importedFiles } = ts.preProcessFile(fs.readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = importedFiles.map((i) => resolve(file, i.fileName)).filter((t): t is string => t !== null);
    return [file, [...new Set(targets)]];
  }),
);

/** Strongly connected components with more than one file (or a file importing itself): the circles. */
function circles(): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next += 1;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) found.push(component.sort());
    }
  };
  for (const file of files) if (!index.has(file)) visit(file);
  return found;
}

/** `lib/page/answer/reader.ts` → `lib/page`; `components/App.tsx` → `components`. */
function topRoom(file: string): string {
  const parts = file.split('/');
  return parts[0] === 'lib' ? `lib/${parts[1]}` : (parts[0] as string);
}

function edges(): [string, string][] {
  return [...graph].flatMap(([from, targets]) => targets.map((to) => [from, to] as [string, string]));
}

describe('the house: imports among the product files', () => {
  it('reads the imports it judges (type imports, re-exports and dynamic imports included)', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(graph.get('entrypoints/background.ts')).toContain('lib/worker/main.ts');
    const all = edges();
    expect(all.length).toBeGreaterThan(files.length);
    expect(all.filter(([, to]) => to.endsWith('(no such file)'))).toEqual([]);
  });

  it('has no import circle, type imports included', () => {
    expect(circles()).toEqual([]);
  });

  it('imports nothing from a layer above: protocol → selectors → page → worker → relay → mcp → cli', () => {
    const upward = edges()
      .filter(([from, to]) => topRoom(from) !== topRoom(to))
      .filter(([from, to]) => {
        const a = topRoom(from);
        const b = topRoom(to);
        if (a === 'entrypoints') return false;
        if (a === 'components') return !COMPONENTS_MAY_IMPORT.includes(b);
        const la = LIB_LAYERS[a];
        const lb = LIB_LAYERS[b];
        return la === undefined || lb === undefined || lb >= la;
      })
      .map(([from, to]) => `${from} → ${to}`);
    expect(upward).toEqual([]);
  });

  it('knows every room under lib/', () => {
    const rooms = new Set(files.filter((f) => f.startsWith('lib/')).map(topRoom));
    expect([...rooms].filter((room) => LIB_LAYERS[room] === undefined)).toEqual([]);
  });

  it('imports nothing from a sub-room above in lib/page, lib/worker and components', () => {
    const subRoom = (file: string) => {
      const parts = file.slice(topRoom(file).length + 1).split('/');
      return parts.length > 1 ? (parts[0] as string) : '.';
    };
    const upward = edges()
      .filter(([from, to]) => topRoom(from) === topRoom(to) && SUB_LAYERS[topRoom(from)] && subRoom(from) !== subRoom(to))
      .filter(([from, to]) => {
        const layers = SUB_LAYERS[topRoom(from)] as Record<string, number>;
        const a = layers[subRoom(from)];
        const b = layers[subRoom(to)];
        return a === undefined || b === undefined || b >= a;
      })
      .map(([from, to]) => `${from} → ${to}`);
    expect(upward).toEqual([]);
  });

  it('knows every sub-room of components/', () => {
    const rooms = files.filter((f) => f.split('/').length > 2 && f.startsWith('components/')).map((f) => f.split('/')[1] as string);
    expect(rooms.filter((room) => SUB_LAYERS.components?.[room] === undefined)).toEqual([]);
  });
});

describe("the house: rooms small enough to find one's way in", () => {
  const counts = folderCounts();

  it('counts the source folders it judges, product and tests alike', () => {
    for (const folder of ['.', 'components', 'entrypoints', 'lib/page/kits', 'scripts', 'tests/sim', 'tests/sim/client', 'tests/demo']) {
      expect(counts.get(folder), folder).toBeGreaterThan(0);
    }
    expect(counts.has('node_modules')).toBe(false);
  });

  it(`keeps every source folder of the repository at ${FOLDER_LIMIT} source files of its own or fewer`, () => {
    const over = [...counts].filter(([folder, n]) => n > FOLDER_LIMIT && FLAT_TEST_FOLDERS[folder] === undefined);
    expect(over).toEqual([]);
  });

  it('exempts only test folders that are still over the limit, each with its reason', () => {
    for (const [folder, reason] of Object.entries(FLAT_TEST_FOLDERS)) {
      expect(folder.startsWith('tests/'), folder).toBe(true);
      expect(counts.get(folder) ?? 0, `${folder} is back under the limit: drop its exemption`).toBeGreaterThan(FOLDER_LIMIT);
      expect(reason.length).toBeGreaterThan(20);
    }
  });
});
