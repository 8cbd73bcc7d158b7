/** The file-exporting instrument's simulator: result files written into a folder (see exporter.ts). */
export { FileExporter, fromTemplate, MALFORMED, type WriteOptions, type Written } from './exporter';
