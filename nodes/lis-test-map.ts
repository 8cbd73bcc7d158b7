/**
 * lis-test-map: one analyzer's test map, shared by every test-mapper of that analyzer (orders and results alike),
 * as lis-config is shared by the LIS nodes. Its rows are part of the flow: a change takes effect on Deploy. A
 * "mapping" message to any of its test-mappers replaces the rows for all of them until the next Deploy.
 */
import type { Node, NodeAPI, NodeDef } from 'node-red';
import type { LisError } from '../lib/errors';
import { type MappingRow, parseMapping } from '../lib/mapping';
import type { TestMapNode } from './shared/types';

interface Def extends NodeDef {
  instrument?: string;
  mapping?: unknown;
}

export = function register(RED: NodeAPI): void {
  function LisTestMap(this: Node & TestMapNode, def: Def) {
    RED.nodes.createNode(this, def);
    const node = this;
    const listeners = new Set<() => void>();
    let rows: MappingRow[] = [];
    let error: LisError | undefined;

    const replace = (candidate: unknown, source: string): LisError | undefined => {
      const parsed = parseMapping(candidate, source);
      if ('error' in parsed) return parsed.error;
      rows = parsed.rows;
      for (const l of listeners) l();
      return undefined;
    };

    error = replace(def.mapping, `the deployed test map "${def.name || def.instrument || node.id}":`);
    Object.assign(node, {
      instrument: def.instrument ?? '',
      rows: () => rows,
      mapError: () => error,
      replace: (candidate: unknown) => {
        const err = replace(candidate, 'the message');
        if (!err) error = undefined;
        return err;
      },
      onChange: (listener: () => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
    });
  }

  RED.nodes.registerType('lis-test-map', LisTestMap as never);
};
