/** Instruments that export result files: file dialects, reading a file into lab events, the host and the editor's preview, and the watched folder. What nodes/ uses of it. */
export type * from './types';
export * from './dialects';
export { FILE_OVERRIDE_RULES, siteFileDialectOf, siteFileDraft, siteFileProfile } from './overrides';
export { FileDialectProfileSchema } from './schema';
export { CODE_PAGES, FILE_ENCODINGS, isCodePage, type FileEncoding } from './encoding';
export { FileDialectError, fileProfileIssues, fileProfileProblems } from './validate';
export { fileLabEvents, fileLabEventsInSlices, FileReadError, fileRows, fileRowsInSlices, readFile, readFileInSlices, type FileReadOptions } from './read';
export { DEFAULT_MAX_UNPACKED_MB } from './workbook';
export { DEFAULT_MAX_ROWS } from './table';
export { HARD_CAP_MB, workbookRowsOffLoop } from './workbook-thread';
export { captureOf, previewFile, previewFileInSlices, previewFileSite, previewFileSiteInSlices, type FilePaste, type FilePlace, type FileSitePreview } from './preview';
export { pointFileAt, pointFileAtInSlices, type FilePointAnswer, type FilePointRequest } from './point';
export { FileHost, fileHostSettings } from './host';
export { type FileOfResults, siftFileResults, type Sifted } from './corrections';
// The watched folder (folder-link).
export * from './folder';
