// Replaced at build time by vite.config.ts (STYLESHEETS): the stylesheet files of browsers without
// constructable stylesheets, relative to widget.js.

/** `widget-assets/launcher-<hash>.css`: the launcher's rules. */
declare const __LAUNCHER_STYLESHEET__: string;
/** `widget-assets/panel-<hash>.css`: the chat panel's rules. */
declare const __PANEL_STYLESHEET__: string;
