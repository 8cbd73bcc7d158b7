/**
 * Which analyzer dialect each deployed link speaks, for the Lab sidebar's
 * subtitle: the dialect of the message node wired to the link (either way),
 * read from the deployed flows, so the box says "Roche cobas e 411 (Elecsys
 * type)" before the analyzer has sent anything. A link wired to several
 * message nodes of different dialects shows none of them.
 */
import type { NodeAPI } from 'node-red';
import { findProfile } from '../../lib/protocols/astm';
import { findHl7Profile } from '../../lib/protocols/hl7';

const MESSAGE_TYPES: Record<string, 'astm' | 'hl7'> = { 'astm-message': 'astm', 'hl7-message': 'hl7' };
const LINK_TYPES = new Set(['astm-link', 'hl7-link']);

interface FlowNodeDef {
  id: string;
  type: string;
  dialect?: string;
  wires?: string[][];
}

/** Link node id -> the dialect id of the message node(s) wired to it. */
export function configuredDialects(RED: NodeAPI): Map<string, string> {
  const nodes: FlowNodeDef[] = [];
  RED.nodes.eachNode((n) => nodes.push(n as unknown as FlowNodeDef));
  const links = new Set(nodes.filter((n) => LINK_TYPES.has(n.type)).map((n) => n.id));
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const found = new Map<string, Set<string>>();
  const add = (link: string, dialect: string) => {
    const set = found.get(link) ?? new Set<string>();
    set.add(dialect);
    found.set(link, set);
  };
  for (const n of nodes) {
    const targets = (n.wires ?? []).flat();
    if (MESSAGE_TYPES[n.type] && n.dialect) {
      for (const t of targets) if (links.has(t)) add(t, n.dialect);
    } else if (links.has(n.id)) {
      for (const t of targets) {
        const m = byId.get(t);
        if (m && MESSAGE_TYPES[m.type] && m.dialect) add(n.id, m.dialect);
      }
    }
  }
  const out = new Map<string, string>();
  for (const [link, dialects] of found) if (dialects.size === 1) out.set(link, [...dialects][0]!);
  return out;
}

/** The dialect's label ("Roche cobas e 411 (Elecsys type)"), or its id when no built-in dialect has it. */
export function dialectLabel(protocol: string, id: string): string {
  const profile = protocol === 'hl7' ? findHl7Profile(id) : findProfile(id);
  return profile?.label ?? id;
}
