/**
 * The rows a test-mapper maps with: its analyzer's test map (lis-test-map, shared with the analyzer's other
 * test-mappers) or, in a flow saved before test maps, its own. A "mapping" message replaces the map's rows for all
 * of its test-mappers, or the node's own.
 */
import type { Node, NodeAPI } from 'node-red';
import { invalidInput, type LisError } from '../../lib/errors';
import { type MappingRow, parseMapping } from '../../lib/mapping';
import type { TestMapNode } from './types';

export interface MapperRows {
  rows(): readonly MappingRow[];
  /** The rows of a "mapping" message; the refusal, rows unchanged, when they are unusable. */
  replace(candidate: unknown): LisError | undefined;
  /** Why the deployed rows cannot be used, if they cannot. */
  readonly deployError: LisError | undefined;
}

/** `changed` runs whenever the rows change (a deploy, a "mapping" message to this node or, for a map, to another of its test-mappers). */
export function mapperRows(RED: NodeAPI, node: Node, def: { map?: string; mapping?: unknown }, changed: (rows: readonly MappingRow[]) => void): MapperRows {
  if (def.map) {
    const map = RED.nodes.getNode(def.map) as TestMapNode | null;
    if (!map) {
      const error = invalidInput('no test map', [`the test map ${def.map} this node uses is not deployed: choose its test map in the node's dialog and deploy`]);
      return { rows: () => [], replace: () => error, deployError: error };
    }
    node.on('close', map.onChange(() => changed(map.rows())));
    const deployError = map.mapError();
    if (!deployError) changed(map.rows());
    return { rows: () => map.rows(), replace: (candidate) => map.replace(candidate), deployError };
  }
  let own: MappingRow[] = [];
  const use = (candidate: unknown, source: string): LisError | undefined => {
    const parsed = parseMapping(candidate, source);
    if ('error' in parsed) return parsed.error;
    own = parsed.rows;
    changed(own);
    return undefined;
  };
  return { rows: () => own, replace: (candidate) => use(candidate, 'the message'), deployError: use(def.mapping, 'the deployed') };
}
