/**
 * A setting that cannot work, named: a `${NAME}` Node-RED left in place, an
 * empty value where one is needed, or a value of the wrong kind. Node-RED
 * replaces a property by an environment variable only when the whole value is
 * one `${NAME}` and NAME is set (@node-red/runtime flows/util.js,
 * mapEnvVarProperties); otherwise the text stays as written and would reach
 * a socket or a serial port as a port "NaN" or a device "${ANALYZER_PORT}".
 * Every node that reads settings checks them here, so the fault names the
 * setting and the variable to set instead of surfacing as a raw Node.js error.
 */
import { LisError } from '../errors';

export interface SettingFault {
  /** The setting, as the node's errors name it (its property, or the endpoint's label); unknown for a fault read from older text. */
  setting?: string;
  /** The environment variable to set, when an unresolved `${NAME}` is the fault. */
  variable?: string;
  /** What is wrong and what to set, for logs and Catch nodes. */
  message: string;
}

/** `${NAME}` as Node-RED writes it (names as in env-template.ts, and Node-RED's own `\S+`). */
const REFERENCE = /\$\{([^}\s]+)\}/g;

/** The names of the `${NAME}` references still in a value (none for anything but a string). */
export function unresolvedNames(value: unknown): string[] {
  if (typeof value !== 'string') return [];
  return [...new Set([...value.matchAll(REFERENCE)].map((m) => m[1]!))];
}

/**
 * The fault of a setting whose value still holds a `${NAME}`, or undefined.
 * `lookup` tells a variable that is set (then Node-RED skipped it because it
 * is not the whole value); `expected` says what the setting takes ("a port number").
 */
export function unresolvedSetting(setting: string, value: unknown, expected: string, lookup?: (name: string) => string | undefined): SettingFault | undefined {
  const [variable] = unresolvedNames(value);
  if (variable === undefined) return undefined;
  const set = lookup?.(variable);
  const message =
    set === undefined || set === ''
      ? `${setting} is ${JSON.stringify(value)}, but the environment variable ${variable} is not set: set ${variable} to ${expected} (or write it in the node)`
      : `${setting} is ${JSON.stringify(value)}: Node-RED replaces \${${variable}} only when it is the whole value; write ${expected} there, or \${${variable}} alone`;
  return { setting, variable, message };
}

/** A setting that is empty or of the wrong kind (its value does not hold a `${NAME}`). */
export function invalidSetting(setting: string, message: string): SettingFault {
  return { setting, message };
}

/** A fault from a problem written as text (the older checks), naming neither setting nor variable. */
export function asFault(problem: string | SettingFault): SettingFault {
  return typeof problem === 'string' ? { message: problem } : problem;
}

/** NOT_CONFIGURED (or INVALID_URL), carrying the faults so the node's status can name what to set. */
export class SettingError extends LisError {
  constructor(
    message: string,
    readonly faults: readonly SettingFault[],
    code: 'NOT_CONFIGURED' | 'INVALID_URL' = 'NOT_CONFIGURED',
  ) {
    super(message, { code, errors: faults.map((f) => f.message) });
  }

  /** The fault the status names: the first with a variable to set, else the first naming its setting. */
  get named(): SettingFault | undefined {
    return this.faults.find((f) => f.variable !== undefined) ?? this.faults.find((f) => f.setting !== undefined);
  }
}
