/** Instruments that export result files: what nodes/ uses of lib/protocols/file. */
// The watched folder (folder-link).
export * from './folder';
