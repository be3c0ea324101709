/**
 * Reads a policy file the way Chromium's ConfigDirPolicyLoader does (chromium/chromium
 * components/policy/core/common/config_dir_policy_loader.cc: `JSONFileValueDeserializer` with
 * `JSON_PARSE_CHROMIUM_EXTENSIONS | JSON_ALLOW_TRAILING_COMMAS`): a UTF-8 byte-order mark, `//` and
 * `/* *\/` comments, a comma before `}` or `]`, raw control characters and newlines inside strings,
 * `\v` and `\xHH` escapes. The text is rewritten into strict JSON, then parsed; whatever still fails
 * is an error the caller must not take for "the browser skips it".
 */
export function parseChromiumJson(text: string): unknown {
  return JSON.parse(toStrictJson(text));
}

/** `text` in Chromium's JSON dialect, as strict JSON with the same value. Throws on an unclosed comment or string. */
export function toStrictJson(text: string): string {
  const src = text.startsWith('\uFEFF') ? text.slice(1) : text;
  let out = '';
  let i = 0;
  // Index in `out` of a comma that may turn out to be trailing (only whitespace or comments after it so far).
  let pendingComma = -1;
  while (i < src.length) {
    const c = src[i] as string;
    if (c === '"') {
      pendingComma = -1;
      const end = stringEnd(src, i);
      out += strictString(src.slice(i, end));
      i = end;
      continue;
    }
    if (c === '/' && src[i + 1] === '/') {
      const nl = src.indexOf('\n', i);
      i = nl === -1 ? src.length : nl;
      continue;
    }
    if (c === '/' && src[i + 1] === '*') {
      const close = src.indexOf('*/', i + 2);
      if (close === -1) throw new SyntaxError(`a /* comment opened at position ${i} is never closed`);
      i = close + 2;
      out += ' ';
      continue;
    }
    if ((c === '}' || c === ']') && pendingComma !== -1) {
      out = `${out.slice(0, pendingComma)} ${out.slice(pendingComma + 1)}`;
    }
    if (c === ',') pendingComma = out.length;
    else if (!/\s/.test(c)) pendingComma = -1;
    out += c;
    i++;
  }
  return out;
}

/** The index just past the string opening at `start`. */
function stringEnd(src: string, start: number): number {
  let i = start + 1;
  while (i < src.length) {
    const c = src[i];
    if (c === '\\') i += 2;
    else if (c === '"') return i + 1;
    else i++;
  }
  throw new SyntaxError(`a string opened at position ${start} is never closed`);
}

/** One string literal (quotes included), with Chromium's extra escapes and raw control characters made strict. */
function strictString(literal: string): string {
  let out = '';
  for (let i = 0; i < literal.length; i++) {
    const c = literal[i] as string;
    if (c === '\\') {
      const next = literal[i + 1];
      if (next === 'v') {
        out += '\\u000b';
        i++;
      } else if (next === 'x' && /^[0-9a-fA-F]{2}$/.test(literal.slice(i + 2, i + 4))) {
        out += `\\u00${literal.slice(i + 2, i + 4)}`;
        i += 3;
      } else {
        out += `${c}${next ?? ''}`;
        i++;
      }
      continue;
    }
    const code = c.charCodeAt(0);
    out += code < 0x20 ? `\\u${code.toString(16).padStart(4, '0')}` : c;
  }
  return out;
}
