/**
 * The text encodings a file dialect reads. Node decodes UTF-8, Latin-1 and
 * UTF-16LE itself; the legacy code pages instruments still write (Chinese
 * analyzers' GBK and GB18030, Big5, Japanese Shift_JIS, the Windows code
 * pages 1250 to 1258) are decoded by the WHATWG TextDecoder Node carries
 * (full ICU in Node's own builds), a byte it cannot map read as U+FFFD.
 * Node cannot write them: a paste in the dialog is text already, so it is
 * read as the UTF-8 it arrives in (forPaste).
 */
import type { FileDialectProfile } from './types';

export const NODE_ENCODINGS = ['utf8', 'latin1', 'utf16le'] as const;
export const CODE_PAGES = ['windows-1250', 'windows-1251', 'windows-1252', 'windows-1253', 'windows-1254', 'windows-1255', 'windows-1256', 'windows-1257', 'windows-1258', 'gbk', 'gb18030', 'big5', 'shift_jis'] as const;
export const FILE_ENCODINGS = [...NODE_ENCODINGS, ...CODE_PAGES] as const;
export type FileEncoding = (typeof FILE_ENCODINGS)[number];
export type CodePage = (typeof CODE_PAGES)[number];

export function isCodePage(encoding: FileEncoding): encoding is CodePage {
  return (CODE_PAGES as readonly string[]).includes(encoding);
}

/** A streaming decoder for a code page: bytes in, text out, a character cut between two writes put together. */
export function codePageDecoder(encoding: CodePage): { write(bytes: Buffer): string; end(): string } {
  const decoder = new TextDecoder(encoding, { fatal: false });
  return { write: (bytes) => decoder.decode(bytes, { stream: true }), end: () => decoder.decode() };
}

/** The profile a paste (text already) is read with: in a code page Node cannot write, UTF-8, which the paste arrives in. */
export function forPaste<P extends FileDialectProfile | undefined>(profile: P): P {
  return profile !== undefined && isCodePage(profile.encoding) ? { ...profile, encoding: 'utf8' } : profile;
}

/** The profile bytes are read with: forPaste's when they came as a paste, else the dialect itself. */
export function readingAs<P extends FileDialectProfile | undefined>(profile: P, pasted: boolean): P {
  return pasted ? forPaste(profile) : profile;
}

/** A paste's bytes, as forPaste(profile) decodes them. */
export function pasteBytes(text: string, profile: FileDialectProfile | undefined): Buffer {
  return Buffer.from(text, (forPaste(profile)?.encoding ?? 'utf8') as BufferEncoding);
}
