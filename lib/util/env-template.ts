/**
 * `${NAME}` placeholders in configured addresses, e.g. `${LIS_BASE}/orders`.
 *
 * Node-RED itself substitutes a property only when the whole value is one
 * `${NAME}`, and leaves it untouched when NAME is unset; this expands any
 * number of placeholders anywhere in the value and refuses unset names, so a
 * missing variable is reported by name instead of becoming a request to
 * a literal "${LIS_BASE}/orders".
 */
export type EnvLookup = (name: string) => string | undefined;

const PLACEHOLDER = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

export class UnsetVariableError extends Error {
  constructor(readonly variable: string) {
    super(`environment variable ${variable} is not set`);
    this.name = 'UnsetVariableError';
  }
}

export function expandEnv(template: string, lookup: EnvLookup): string {
  return template.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = lookup(name);
    if (value === undefined || value === '') throw new UnsetVariableError(name);
    return value;
  });
}
