/**
 * A node type's help as the editor's help sidebar renders it, and the check
 * that it reads as Node-RED renders its core nodes' help (no raw `: name (type) :`
 * markup, property lists where Inputs and Outputs are). Shared by the help
 * test and the first-day journey, which runs it on the installed package.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** What the help sidebar shows for a node type, as the palette's help (and the node's "?" button) opens it. */
export interface RenderedHelp {
  title: string;
  /** Lines that read as property-list markup Node-RED did not render. */
  raw: string[];
  headings: string[];
  /** Per h3 section, whether a dl.message-properties (Inputs, Properties) or ol.node-ports (Outputs) follows it. */
  lists: Record<string, string[]>;
  /** <dt> elements outside a dl.message-properties: a paragraph taken as a property. */
  strayTerms: number;
  terms: number;
}

export async function openHelp(page: Page, type: string): Promise<RenderedHelp> {
  return page.evaluate((nodeType) => {
    const RED = (globalThis as unknown as { RED: { sidebar: { help: { show(t: string): void } } } }).RED;
    RED.sidebar.help.show(nodeType);
    const title = document.querySelector('.red-ui-sidebar-help-stack h1.red-ui-help-title');
    const help = title?.parentElement;
    if (!help) throw new Error(`no help shown for ${nodeType}`);
    // A property line Node-RED did not render stays a source line of its own in the text (markdown keeps the line
    // breaks of a paragraph): a line that starts with ': ', or '(type) : ' anywhere. Code is left out: a colon is
    // its content.
    const text = help.cloneNode(true) as HTMLElement;
    text.querySelectorAll('code, pre').forEach((c) => c.replaceWith('`code`'));
    const raw = (text.textContent ?? '').split('\n').filter((line) => /^\s*:\s/.test(line) || /\) : /.test(line)).map((line) => line.trim());
    const lists: Record<string, string[]> = {};
    let section = '';
    for (const el of Array.from(help.querySelectorAll('h3, dl.message-properties, ol.node-ports'))) {
      if (el.tagName === 'H3') section = el.textContent!.trim();
      else if (!el.closest('ol.node-ports') || el.tagName === 'OL') (lists[section] ??= []).push(`${el.tagName.toLowerCase()}.${el.className}`);
    }
    return {
      title: title!.textContent ?? '',
      raw,
      headings: Array.from(help.querySelectorAll('h3')).map((h) => h.textContent!.trim()),
      lists,
      strayTerms: Array.from(help.querySelectorAll('dt')).filter((dt) => !dt.closest('dl.message-properties')).length,
      terms: help.querySelectorAll('dl.message-properties > dt').length,
    };
  }, type);
}

/** Fails, naming the type, where the help of `type` does not render as the core nodes' help does. */
export function assertHelpRenders(type: string, help: RenderedHelp): void {
  assert.deepEqual(help.raw, [], `${type}: raw markup in the help sidebar`);
  assert.equal(help.strayTerms, 0, `${type}: a paragraph rendered as a property`);
  assert.ok(help.terms > 0, `${type}: no property list at all`);
  if (help.headings.includes('Inputs')) assert.deepEqual(help.lists.Inputs?.[0], 'dl.message-properties', `${type}: Inputs`);
  // One output: a property list, as the core nodes' help has; several: one numbered port each.
  if (help.headings.includes('Outputs')) assert.ok(['dl.message-properties', 'ol.node-ports'].includes(help.lists.Outputs?.[0] ?? ''), `${type}: Outputs`);
  assert.ok(help.headings.includes('Details') || help.headings.includes('Properties'), `${type}: no Details section (${help.headings.join(', ')})`);
}
