/** Moved to demo/pty.ts (the demo uses it too). */
export * from '../../demo/pty';
