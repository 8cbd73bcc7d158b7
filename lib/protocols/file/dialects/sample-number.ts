/**
 * What a sample number in a result file may look like, unless a dialect says
 * more: a letter or digit first, then printable characters in words joined
 * by single spaces (`S-1`, `Sample 1`, `KD ABC`, `1. 200217 U251p14`). A cell
 * is trimmed before it is matched. Refused: a tab, a line break, a control
 * character or two spaces in a row inside it (an instrument pads columns with
 * spaces, and two in a row inside a cell say two fields ran together, as in
 * `CalStd  B`), and a label that starts with punctuation (`(+)`, `(-)`, `*`:
 * a plate's marks, not a sample a LIS holds). A refused sample is held aside
 * with the reason, never sent; the LIS interface says only that a sample
 * number is a string (docs/file-analyzers.md).
 */
export const SAMPLE_NUMBER = '[\\p{L}\\p{N}][^\\s\\p{Cc}]*(?: [^\\s\\p{Cc}]+)*';

/** The same in words, for the reason a refused sample is held with. */
export const SAMPLE_NUMBER_SAID = 'a letter or digit first, then words joined by single spaces';
