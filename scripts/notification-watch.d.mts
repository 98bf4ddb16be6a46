// Types for notification-watch.mjs, so the TypeScript browser tests can import it.

/** The init script: records desktop notifications in `window.__notes`, and `window.__setHidden(hidden)`. */
export const WATCH_NOTIFICATIONS: string;
