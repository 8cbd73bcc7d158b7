/** Small helpers with no home of their own. What nodes/ uses of it. */
export { type EnvLookup } from './env-template';
export { capText } from './cap-text';
export { jsonPieces } from './json-pieces';
export { sliceEnd } from './slices';
