/**
 * Logs written by Python LIS drivers, one record per read: the logging
 * module's `2022-07-13 19:29:32,216 - name - INFO - ` prefix, then the
 * bytes read, printed by Python as a bytes literal (`b'\x021H|\\^&...\r\x038C\r\n'`,
 * or `b"..."` when the bytes hold a quote). Some drivers print the read inside
 * a list (`Data: [b'...']`). The literal is the wire's bytes exactly; its
 * escapes are undone here and nothing else is changed.
 */

const PREFIX = /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} - \S+ - INFO - /;
/** A line that is one read: the prefix, an optional `Data: [`, the literal, its `]`. */
const READ = /^(?:Data: \[)?b(['"])(.*)\1(\]?)$/;

export interface PythonLogReads {
  /** Each read's bytes, in file order. */
  reads: Buffer[];
  /** Lines that are no read (the driver's own messages), counted so a caller can insist there are none. */
  otherLines: number;
}

/** The bytes a Python bytes literal's body stands for (`\xNN`, `\r`, `\n`, `\t`, `\\`, `\'`, `\"`). */
export function pythonBytes(body: string, fail: (message: string) => never): Buffer {
  const out: number[] = [];
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c > 0x7e || c < 0x20) fail(`byte 0x${c.toString(16)} in a bytes literal (Python escapes it)`);
    if (body[i] !== '\\') {
      out.push(c);
      continue;
    }
    const e = body[++i];
    if (e === 'x') {
      const hex = body.slice(i + 1, i + 3);
      if (!/^[0-9a-f]{2}$/.test(hex)) fail(`bad \\x escape "\\x${hex}"`);
      out.push(parseInt(hex, 16));
      i += 2;
    } else {
      const simple: Readonly<Record<string, number>> = { r: 0x0d, n: 0x0a, t: 0x09, '\\': 0x5c, "'": 0x27, '"': 0x22 };
      const byte = e === undefined ? undefined : simple[e];
      if (byte === undefined) fail(`unknown escape "\\${e ?? ''}"`);
      else out.push(byte);
    }
  }
  return Buffer.from(out);
}

/**
 * The reads of a Python driver's log. Lines are separated as the file has
 * them (LF, or CR LF on Windows); a read line must carry the logging prefix.
 */
export function pythonLogReads(text: string, fail: (message: string) => never): PythonLogReads {
  const lines = text.split('\n').map((l) => (l.endsWith('\r') ? l.slice(0, -1) : l));
  if (lines[lines.length - 1] === '') lines.pop();
  const reads: Buffer[] = [];
  let otherLines = 0;
  lines.forEach((line, n) => {
    const prefix = PREFIX.exec(line);
    const m = prefix === null ? null : READ.exec(line.slice(prefix[0].length));
    if (m === null) {
      otherLines++;
      return;
    }
    const list = line.slice(prefix![0].length).startsWith('Data: [');
    if (list !== (m[3] === ']')) fail(`line ${n + 1}: "Data: [" without its "]"`);
    reads.push(pythonBytes(m[2] ?? '', (message) => fail(`line ${n + 1}: ${message}`)));
  });
  if (reads.length === 0) fail('no read (a bytes literal after the logging prefix) in the log');
  return { reads, otherLines };
}
