import type { Tool } from '@modelcontextprotocol/sdk/types.js';

/**
 * How heavy a tools/list is, measured the way issue reports and the bench compare servers: the
 * bytes (UTF-8, compact JSON) of what a model reads of each tool (name, title, description, input
 * schema), and of the whole list. Both are deterministic for a given build.
 */
export interface ListWeight {
  tools: number;
  /** name, title, description and inputSchema of every tool. */
  modelBytes: number;
  /** The whole tools/list result: output schemas, annotations and execution too. */
  wholeBytes: number;
}

export function listWeight(list: { tools: Tool[] }): ListWeight {
  const read = list.tools.map(({ name, title, description, inputSchema }) => ({ name, title, description, inputSchema }));
  return { tools: list.tools.length, modelBytes: Buffer.byteLength(JSON.stringify(read)), wholeBytes: Buffer.byteLength(JSON.stringify(list)) };
}

/**
 * The budgets issue 16 set for 24 tools (about 60 % of Playwright MCP's 17.6 kB for what a model
 * reads, 11 kB, and half its 54.2 kB list, 25 kB), held since as averages a tool, so a new tool has
 * to be as lean as the rest: 470 bytes a model reads, 1,040 bytes of the whole list.
 */
export const MODEL_BYTES_PER_TOOL = 470;
export const WHOLE_BYTES_PER_TOOL = 1_040;
export const modelBytesBudget = (tools: number) => tools * MODEL_BYTES_PER_TOOL;
export const wholeBytesBudget = (tools: number) => tools * WHOLE_BYTES_PER_TOOL;

export interface SchemaFinding {
  rule: 'boolean-schema' | 'type-union' | 'remote-ref' | 'untyped-schema' | 'dangling-ref';
  path: string;
}

/**
 * What the MCP Inspector CLI's `--strict` reports for a tool schema (its core/json/schemaLint.ts,
 * version 2.12.0), plus a local `$ref` that resolves to nothing:
 * - a bare `true`/`false` where a schema object belongs (error);
 * - `type` as an array, which single-type dialects such as Gemini's reject (warning);
 * - a `$ref` outside the document (warning);
 * - a schema with no validation keyword at all, which accepts anything (warning).
 */
export function schemaFindings(schema: unknown): SchemaFinding[] {
  const findings: SchemaFinding[] = [];
  const root = schema;
  const visit = (node: unknown, path: string, keyword: string | undefined) => {
    if (typeof node === 'boolean') {
      if (!keyword || !BOOLEAN_OK.has(keyword)) findings.push({ rule: 'boolean-schema', path });
      return;
    }
    if (!isRecord(node)) return;
    if (Array.isArray(node.type)) findings.push({ rule: 'type-union', path });
    if (typeof node.$ref === 'string') {
      if (!node.$ref.startsWith('#')) findings.push({ rule: 'remote-ref', path });
      else if (resolvePointer(root, node.$ref) === undefined) findings.push({ rule: 'dangling-ref', path });
    }
    const constrains = Object.keys(node).some((key) => CONSTRAINING.has(key)) || ('if' in node && ('then' in node || 'else' in node));
    if (!constrains && keyword !== 'not') findings.push({ rule: 'untyped-schema', path });
    for (const key of SUBSCHEMA_MAPS) {
      const map = node[key];
      if (isRecord(map)) for (const [name, sub] of Object.entries(map)) visit(sub, `${path}.${key}.${name}`, key);
    }
    for (const key of SUBSCHEMA_LISTS) {
      const list = node[key];
      if (!Array.isArray(list)) continue;
      for (const [i, sub] of list.entries()) visit(sub, `${path}.${key}[${i}]`, key);
    }
    for (const key of SUBSCHEMAS) {
      if (!(key in node)) continue;
      const value = node[key];
      if (key === 'items' && Array.isArray(value)) {
        for (const [i, sub] of value.entries()) visit(sub, `${path}.items[${i}]`, key);
      } else {
        visit(value, `${path}.${key}`, key);
      }
    }
  };
  visit(schema, '', undefined);
  return findings;
}

const BOOLEAN_OK = new Set(['additionalProperties', 'unevaluatedProperties', 'additionalItems', 'unevaluatedItems']);
const SUBSCHEMAS = ['items', 'contains', 'not', 'propertyNames', 'if', 'then', 'else', ...BOOLEAN_OK, 'contentSchema'];
const SUBSCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];
const SUBSCHEMA_MAPS = ['properties', 'patternProperties', 'dependentSchemas', 'dependencies', '$defs', 'definitions'];
const CONSTRAINING = new Set([
  'type', 'enum', 'const', 'multipleOf', 'maximum', 'exclusiveMaximum', 'minimum', 'exclusiveMinimum', 'maxLength', 'minLength',
  'pattern', 'format', 'contentMediaType', 'contentEncoding', 'contentSchema', 'maxItems', 'minItems', 'uniqueItems', 'maxContains',
  'minContains', 'maxProperties', 'minProperties', 'required', 'dependentRequired', 'allOf', 'anyOf', 'oneOf', 'not', 'items',
  'prefixItems', 'contains', 'additionalItems', 'unevaluatedItems', 'properties', 'patternProperties', 'additionalProperties',
  'unevaluatedProperties', 'propertyNames', 'dependentSchemas', 'dependencies', '$ref', '$dynamicRef', '$recursiveRef',
]);

function resolvePointer(root: unknown, ref: string): unknown {
  let node: unknown = root;
  for (const part of ref.slice(1).split('/').filter(Boolean)) {
    if (!isRecord(node)) return undefined;
    node = node[part.replace(/~1/g, '/').replace(/~0/g, '~')];
  }
  return node;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
