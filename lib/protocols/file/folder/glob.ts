/**
 * The file name pattern a folder link takes: shell globs (`*`, `?`, `[abc]`,
 * `[!abc]`, `{csv,txt}`), several separated by `;`. Matched without regard to
 * case: the folder is often a Windows share, where `RUN1.CSV` and `run1.csv`
 * are the same file.
 */

/** A test of a file name (no directory part) against `pattern`; an empty pattern takes every name. */
export function globMatcher(pattern: string): (name: string) => boolean {
  const parts = pattern
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return () => true;
  const res = parts.map((p) => new RegExp(`^${globToRegExpSource(p)}$`, 'i'));
  return (name) => res.some((re) => re.test(name));
}

/** Problems with a pattern, for the node's settings (an unclosed bracket or brace). */
export function globProblem(pattern: string): string | undefined {
  for (const p of pattern.split(';')) {
    if (count(p, '[') !== count(p, ']')) return `the pattern ${JSON.stringify(p.trim())} has an unclosed [ ]`;
    if (count(p, '{') !== count(p, '}')) return `the pattern ${JSON.stringify(p.trim())} has an unclosed { }`;
    if (/[\\/]/.test(p)) return `the pattern ${JSON.stringify(p.trim())} names a folder: it matches file names only (set the folder in Folder)`;
  }
  return undefined;
}

function count(text: string, ch: string): number {
  return text.split(ch).length - 1;
}

function globToRegExpSource(glob: string): string {
  let out = '';
  let inBraces = false;
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    // Any character but the separator, a line end too: a name may hold one, and is still the instrument's file.
    if (c === '*') out += '[^/]*';
    else if (c === '?') out += '[^/]';
    else if (c === '[') {
      const end = glob.indexOf(']', i + 1);
      if (end < 0) {
        out += '\\[';
        continue;
      }
      let body = glob.slice(i + 1, end);
      const negated = body.startsWith('!');
      if (negated) body = body.slice(1);
      out += `[${negated ? '^' : ''}${body.replace(/[\\\]^]/g, '\\$&')}]`;
      i = end;
    } else if (c === '{' && !inBraces) {
      inBraces = true;
      out += '(?:';
    } else if (c === '}' && inBraces) {
      inBraces = false;
      out += ')';
    } else if (c === ',' && inBraces) out += '|';
    else out += c.replace(/[.+^$()|\\{}]/g, '\\$&');
  }
  if (inBraces) out += ')';
  return out;
}

/**
 * Whether two patterns may take one name, decided conservatively: only
 * patterns whose every part ends in a literal extension (`*.csv`,
 * `run_??.{txt,dat}`) can be told apart, by extensions no part of the other
 * has; any other pair is taken to overlap. A wrong "overlap" refuses a link
 * that could have run, never lets two links read one file.
 */
export function globsOverlap(a: string, b: string): boolean {
  const ea = extensionsOf(a);
  const eb = extensionsOf(b);
  if (ea === undefined || eb === undefined) return true;
  return [...ea].some((e) => eb.has(e));
}

/** Every extension the pattern's parts end in, lower case; undefined when some part may end in anything. */
function extensionsOf(pattern: string): Set<string> | undefined {
  const parts = pattern
    .split(';')
    .map((p) => p.trim())
    .filter((p) => p !== '');
  if (parts.length === 0) return undefined;
  const out = new Set<string>();
  for (const part of parts) {
    const dot = part.lastIndexOf('.');
    if (dot < 0) return undefined;
    const ext = part.slice(dot + 1);
    const braced = /^\{([^{}[\]*?]*)\}$/.exec(ext);
    const choices = braced ? braced[1]!.split(',') : [ext];
    // A dot inside braces, or a wildcard in the extension: it may end in anything.
    if (choices.some((c) => c === '' || /[{}[\]*?,]/.test(c)) || part.slice(0, dot).split('{').length !== part.slice(0, dot).split('}').length) return undefined;
    for (const c of choices) out.add(c.toLowerCase());
  }
  return out;
}
