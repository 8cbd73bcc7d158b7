/**
 * The number of analyzer names is capped by the board (maxAnalyzers); their
 * length is capped by lib/util/cap-text, which the link's routing uses too.
 */
export { MAX_LABEL_CHARS, MAX_SENDER_CHARS, capText } from '../util/cap-text';
