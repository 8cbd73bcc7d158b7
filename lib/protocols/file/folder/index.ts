/** The folder a file-exporting instrument writes into, watched and taken exactly once (see watcher.ts). */
export { FILE_END, FolderStore, type FileState, type TakeOutcome } from './folder-store';
export { globMatcher, globProblem, globsOverlap } from './glob';
export { endsMidLine } from './line-end';
export { LOCK_NAME, LOCK_STALE_MS, type LockOwner } from './folder-lock';
export { type FolderClash, type FolderReader, FolderReaders, folderReaders } from './readers';
export { DONE_DIR, ERROR_DIR, REASON_SUFFIX } from './names';
export { AFTER_CHOICES, type AfterDelivery, FOLDER_DEFAULTS, type FileFacts, type FolderOptions } from './options';
export { type Finished, type FolderCounts, type FolderEvents, type FolderProblem, FolderWatcher, sha256, type TakenFile } from './watcher';
