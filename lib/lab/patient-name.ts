/**
 * The LIS gives one name string ("Jane Roe" or "Roe, Jane"); P-6 wants
 * last^first^... . Only the comma form says which part is the surname, so
 * only that one is split: "Roe, Jane" -> Roe^Jane. Any other name goes whole
 * into the last-name component ("Jane Roe" -> `Jane Roe^`): the analyzer shows
 * the name as the LIS wrote it, and no word is guessed to be the surname
 * ("Mary Ann Smith", "van der Berg Jan" would go wrong).
 */
export function nameComponents(name: string, count: number): string[] {
  const text = name.trim();
  const out: string[] = new Array<string>(Math.max(count, 1)).fill('');
  const comma = text.indexOf(',');
  if (comma < 0 || count < 2) {
    out[0] = text;
    return out;
  }
  out[0] = text.slice(0, comma).trim();
  out[1] = text.slice(comma + 1).trim();
  return out;
}
