/**
 * The environment variable a setting was written as. Node-RED hands a node
 * the variable's value in place of a whole-value `${NAME}` (@node-red/runtime
 * flows/util.js, mapEnvVarProperties), so a status that should say which
 * variable to change reads what the integrator wrote: the node's entry in its
 * flow as deployed.
 */
import type { Node } from 'node-red';

const WHOLE_REFERENCE = /^\$\{([^}\s]+)\}$/;

/** The flow's own copy of the node's settings, as deployed (Flow.js keeps them by id). */
interface DeployedFlow {
  flow?: { nodes?: Record<string, Record<string, unknown>>; configs?: Record<string, Record<string, unknown>> };
}

/**
 * NAME when the node's `prop` is written as `${NAME}` alone; undefined for a
 * literal value, or where the runtime keeps its flow otherwise (the caller
 * then names the setting, which is still right, only less precise).
 */
export function templateVariable(node: Node, prop: string): string | undefined {
  const { _flow: flow, _alias: alias } = node as unknown as { _flow?: DeployedFlow; _alias?: string };
  const key = alias ?? node.id;
  const raw = flow?.flow?.nodes?.[key]?.[prop] ?? flow?.flow?.configs?.[key]?.[prop];
  return typeof raw === 'string' ? WHOLE_REFERENCE.exec(raw.trim())?.[1] : undefined;
}
