import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { allTools } from '../../lib/mcp/tools';
import { ERROR_CODES } from '../../lib/protocol/errors';
import { FakeBrowser, removeFakeHomes } from '../support/fake-browser';
import { connectSession } from '../support/mcp-session';

/**
 * Every parameter table of the specification documents (the comet_* reference server's and the Computer MCP server's),
 * row by row, against tools/list as a client receives it: each parameter there, required as the seed says, of the type
 * it names, with the default it gives (review 10, spec: only the event table was held against the seed itself). Read
 * from COMET_SEEDS (`.ci/run` sets it when the folder sits beside the checkout); skipped, saying so, without it.
 */
const seeds = process.env.COMET_SEEDS;
const seedsPresent = Boolean(seeds && existsSync(seeds));
afterAll(removeFakeHomes);

/** Where we depart from a row on purpose, each said in docs/tools.md: `tool.param` → what differs. */
const DEPARTURES: Record<string, 'integer' | 'no default'> = {
  // Whole numbers only: a fraction of a port, a millisecond or a character is refused in words.
  'comet_connect.port': 'integer',
  'comet_wait.timeout': 'integer',
  'comet_get_page_content.maxLength': 'integer',
  // No debug port: the port is accepted and ignored, so no default is claimed.
  'comet_connect.port#default': 'no default',
  // The default is the COMET_SCREENSHOT_FORMAT setting, png unless the person changed it.
  'comet_screenshot.format#default': 'no default',
};

interface Row {
  tool: string;
  param: string;
  type: string;
  required: string;
  default?: string;
  where: string;
}

/** The tab-separated "Parameter" tables of every seed file, each under the nearest tool heading above it. */
function seedRows(folder: string): Row[] {
  const rows: Row[] = [];
  for (const file of readdirSync(folder).sort()) {
    const lines = readFileSync(join(folder, file), 'utf8').split(/\r?\n/);
    lines.forEach((line, i) => {
      if (!line.startsWith('Parameter\t')) return;
      const head = line.split('\t');
      let tool: string | undefined;
      for (let k = i; k >= 0 && !tool; k--) tool = /^(?:\d+\. (comet_\w+)|`(\w+)`)$/.exec(lines[k] ?? '')?.slice(1).find(Boolean);
      if (!tool) return;
      for (let j = i + 1; j < lines.length && lines[j]?.trim(); j++) {
        const cells = (lines[j] as string).split('\t').map((c) => c.replaceAll('`', '').trim());
        const at = (name: string) => cells[head.findIndex((h) => h.startsWith(name))];
        const hasDefault = head.some((h) => h.startsWith('Default'));
        rows.push({ tool, param: cells[0] ?? '', type: at('Type') ?? '', required: at('Required') ?? '', ...(hasDefault ? { default: at('Default') } : {}), where: `${file}:${j + 1}` });
      }
    });
  }
  return rows;
}

const TYPES: Record<string, string[]> = { string: ['string'], number: ['number'], integer: ['integer'], boolean: ['boolean'], 'string[]': ['array'], object: ['object'], enum: ['string'] };

describe.skipIf(!seedsPresent)(seedsPresent ? `the seeds' parameter tables, read from ${seeds}` : 'the seeds’ parameter tables — skipped: COMET_SEEDS names no folder', () => {
  it('every row is a parameter of that tool, required as it says, of its type, with its default', async () => {
    const rows = seedRows(seeds as string);
    expect(rows.length).toBeGreaterThanOrEqual(44);
    const { client } = await connectSession(new FakeBrowser(), { tools: allTools });
    const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t.inputSchema as { properties: Record<string, Record<string, unknown>>; required?: string[] }]));
    await client.close();
    const wrong: string[] = [];
    for (const row of rows) {
      const key = `${row.tool}.${row.param}`;
      const schema = listed.get(row.tool);
      const p = schema?.properties[row.param];
      if (!schema || !p) {
        wrong.push(`${row.where} ${key}: not listed`);
        continue;
      }
      if ((row.required === 'Yes') !== (schema.required ?? []).includes(row.param)) wrong.push(`${row.where} ${key}: required should be ${row.required}`);
      const types = p.anyOf ? (p.anyOf as { type?: string }[]).map((a) => a.type ?? '') : [String(p.type)];
      const want = DEPARTURES[key] === 'integer' ? ['integer'] : (TYPES[row.type] ?? [row.type]);
      if (!want.some((t) => types.includes(t))) wrong.push(`${row.where} ${key}: type should be ${row.type}, listed ${types.join('|')}`);
      // A default of null is the parameter left out (comet_mode without a mode reads it).
      const seedDefault = row.default ? JSON.parse(row.default) : undefined;
      const sameDefault = seedDefault === null ? p.default === undefined || p.default === null : p.default === seedDefault;
      if (seedDefault !== undefined && !DEPARTURES[`${key}#default`] && !sameDefault) wrong.push(`${row.where} ${key}: default should be ${row.default}, listed ${JSON.stringify(p.default)}`);
    }
    // Beyond the seed's own: only optional parameters of ours, in tools whose seed lists parameters and in those whose
    // seed says "None." (review 15b, F7: those were not checked).
    const named = new Set(rows.map((r) => `${r.tool}.${r.param}`));
    const seedTools = new Set([...rows.map((r) => r.tool), ...seedToolNames(seeds as string)]);
    for (const [tool, schema] of listed) {
      if (!seedTools.has(tool)) continue;
      for (const param of schema.required ?? []) if (!named.has(`${tool}.${param}`)) wrong.push(`${tool}.${param}: required, but not in the seed`);
    }
    expect(wrong).toEqual([]);
  });

  it("an enum's values are the seed's: comet_mode's modes, comet_screenshot's formats", async () => {
    const text = readFileSync(join(seeds as string, seedFileOf(seeds as string, 'Enum values for mode:')), 'utf8');
    const modes = [...(text.split('Enum values for mode:')[1] ?? '').split(/\n\s*\n\s*(?=[A-Z])/)[1]?.matchAll(/^`([\w-]+)`\t/gm) ?? []].map((m) => m[1]);
    const formats = [.../^`format`\tenum\t.*$/m.exec(text)?.[0].matchAll(/"(\w+)"/g) ?? []].map((m) => m[1]);
    expect(modes).toHaveLength(7);
    const { client } = await connectSession(new FakeBrowser(), { tools: allTools });
    const listed = new Map((await client.listTools()).tools.map((t) => [t.name, t.inputSchema as { properties: Record<string, { enum?: string[]; anyOf?: { enum?: string[] }[] }> }]));
    await client.close();
    const values = (tool: string, param: string) => {
      const p = listed.get(tool)?.properties[param];
      return p?.enum ?? p?.anyOf?.flatMap((a) => a.enum ?? []) ?? [];
    };
    expect(values('comet_mode', 'mode')).toEqual(modes);
    expect([...new Set(values('comet_screenshot', 'format'))].sort()).toEqual([...new Set(formats)].sort());
  });
});

/** The comet_* tools the seed documents, by their numbered headings ("6. comet_screenshot"). */
function seedToolNames(folder: string): string[] {
  return readdirSync(folder).flatMap((file) => [...readFileSync(join(folder, file), 'utf8').matchAll(/^\d+\. (comet_\w+)$/gm)].map((m) => m[1] as string));
}

/** The seed file that holds `marker`. */
function seedFileOf(folder: string, marker: string): string {
  const file = readdirSync(folder).find((f) => readFileSync(join(folder, f), 'utf8').includes(marker));
  if (!file) throw new Error(`no seed file holds "${marker}"`);
  return file;
}

/** The comet_* reference's error codes (its "Error Codes" table), written out so that this holds without the seeds too. */
const REFERENCE_CODES = ['CDP_CONNECTION_FAILED', 'COMET_NOT_FOUND', 'COMET_LAUNCH_FAILED', 'TAB_NOT_FOUND', 'TIMEOUT', 'EVALUATION_FAILED', 'SELECTOR_NOT_FOUND', 'AGENT_ERROR', 'CONFIG_ERROR'];
const NUMBERS = ['no', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];
const codesIn = (text: string) => [...text.matchAll(/`([A-Z_]+)`/g)].map((m) => m[1] as string);

/** docs/tools.md's word on the reference's codes: which it keeps and which it replaces, by what. */
function docsOnReferenceCodes() {
  const text = readFileSync(join(import.meta.dirname, '../../docs/tools.md'), 'utf8');
  const head = /Of the reference's (\w+) codes, (\w+) are kept in its meaning:([^.]*)\.\s*(\w+) are replaced and never sent/.exec(text);
  const replaced = new Map([...text.matchAll(/^- `([A-Z_]+)` → ((?:`[A-Z_]+`(?: or )?)+):/gm)].map((m) => [m[1] as string, codesIn(m[2] as string)]));
  return { head, kept: head ? codesIn(head[3] as string) : [], replaced };
}

describe("the reference's error codes: each kept or replaced, as docs/tools.md says (review 15b, F4)", () => {
  it('the docs name every code of the reference once, and the counts they give are right', () => {
    const { head, kept, replaced } = docsOnReferenceCodes();
    expect(head, "docs/tools.md's sentence on the reference's codes").not.toBeNull();
    expect([...kept, ...replaced.keys()].sort()).toEqual([...REFERENCE_CODES].sort());
    expect([head?.[1], head?.[2], head?.[4]?.toLowerCase()]).toEqual([NUMBERS[REFERENCE_CODES.length], NUMBERS[kept.length], NUMBERS[replaced.size]]);
  });

  it('a kept code is one of ours, first in lib/protocol/error/codes.ts; a replaced one is not, and what replaces it is', () => {
    const { kept, replaced } = docsOnReferenceCodes();
    expect(ERROR_CODES.slice(0, kept.length)).toEqual(kept);
    for (const [code, by] of replaced) {
      expect(ERROR_CODES as readonly string[], `${code} is replaced, so nothing may send it`).not.toContain(code);
      expect(by.length).toBeGreaterThan(0);
      for (const ours of by) expect(ERROR_CODES as readonly string[]).toContain(ours);
    }
  });

  it.skipIf(!seedsPresent)("the list written out above is the seed's own table", () => {
    const table: string[] = [];
    for (const file of readdirSync(seeds as string).sort()) {
      const lines = readFileSync(join(seeds as string, file), 'utf8').split(/\r?\n/);
      const at = lines.findIndex((line) => line.startsWith('Error Code\t'));
      if (at < 0) continue;
      for (let j = at + 1; lines[j]?.trim(); j++) table.push(...codesIn((lines[j] as string).split('\t')[0] as string));
    }
    expect(table).toEqual(REFERENCE_CODES);
  });
});
