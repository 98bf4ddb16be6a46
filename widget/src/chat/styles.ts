/**
 * The chat panel's CSS (the launcher's is in launcher-styles.ts); colors come from the --p/--bg/--fg variables
 * the launcher sets from the config, and --err. The shadow root adopts it when the chat mounts (view.ts); the
 * build also writes it into a stylesheet file, which browsers without constructable stylesheets link. The dark
 * theme lives here, in the chat file, so nothing loaded before the chat opens grows: the panel's `data-theme`
 * is the config's `theme`, and dark (forced, or `auto` under a dark `prefers-color-scheme`) replaces the
 * background and text with DARK, keeping the accent.
 */

/** The dark palette: every text on it keeps WCAG AA contrast (test/unit/widget-contrast.test.ts computes it). */
export const DARK = { bg: '#161b22', fg: '#e6edf3', err: '#ff8182' } as const;
/** The light theme's error text, on the workspace's background (white by default). */
export const LIGHT_ERR = '#cf222e';

const dark = `--bg:${DARK.bg};--fg:${DARK.fg};--err:${DARK.err};color-scheme:dark`;

export const PANEL_STYLE = `
.panel{--err:${LIGHT_ERR};color-scheme:light}
.panel[data-theme=dark]{${dark}}
@media (prefers-color-scheme:dark){.panel[data-theme=auto]{${dark}}}
.panel{position:fixed;bottom:88px;right:20px;z-index:2147482999;width:370px;height:min(620px,calc(100vh - 110px));display:flex;flex-direction:column;background:var(--bg);color:var(--fg);border-radius:16px;box-shadow:0 8px 40px rgba(0,0,0,.25);overflow:hidden;transition:opacity .15s,transform .15s}
.left .panel{right:auto;left:20px}
.panel button{cursor:pointer}
.panel :focus-visible{outline:2px solid var(--p);outline-offset:2px}
header{display:flex;align-items:center;gap:10px;padding:14px 14px 12px;background:var(--p);color:var(--on-p)}
header img{width:36px;height:36px;border-radius:50%;object-fit:cover;background:#fff}
header .who{flex:1;min-width:0}
header h2{margin:0;font-size:16px;font-weight:600}
header p{margin:2px 0 0;font-size:12.5px;opacity:.9}
header .state{display:inline-block;width:8px;height:8px;border-radius:50%;background:#4ac26b;margin-right:6px}
header .state.away{background:#d0d7de}
header button{border:0;background:transparent;color:inherit;width:32px;height:32px;border-radius:8px;font-size:18px;line-height:1;padding:0}
header button:hover{background:rgba(255,255,255,.18)}
.banner{padding:8px 14px;font-size:13px;background:#fff8c5;color:#4d2d00}
.log{flex:1;overflow-y:auto;padding:14px;display:flex;flex-direction:column;gap:8px;overscroll-behavior:contain}
.msg{max-width:82%;display:flex;flex-direction:column;gap:2px}
.msg .body{padding:8px 12px;border-radius:14px;white-space:pre-wrap;overflow-wrap:anywhere;background:rgba(127,127,127,.14)}
.msg.mine{align-self:flex-end;align-items:flex-end}
.msg.mine .body{background:var(--p);color:var(--on-p)}
.msg.pending{opacity:.6}
.msg.failed .body{outline:2px solid var(--err)}
.msg .author,.msg .note{font-size:11.5px;opacity:.75}
.msg.failed .note{color:var(--err);opacity:1}
.discard{border:0;background:none;color:inherit;text-decoration:underline;font-size:12px;padding:0;cursor:pointer}
.msg img,.msg video{display:block;max-width:100%;border-radius:8px;margin-top:6px}
.msg a{color:inherit}
.msg progress{display:block;width:100%;margin-top:6px}
.composer .clip{background:transparent;color:var(--fg);min-width:30px;padding:0 4px;font-size:18px}
.msg strong{font-weight:700}
.msg em{font-style:italic}
.choices{display:flex;flex-wrap:wrap;gap:6px;align-self:flex-start}
.choices button{border:1px solid var(--p);background:transparent;color:var(--fg);border-radius:16px;padding:6px 12px}
.choices button:hover:not(:disabled),.choices button[aria-pressed=true]{background:var(--p);color:var(--on-p)}
.choices button:disabled{cursor:default}
.choices button:disabled:not([aria-pressed=true]){opacity:.5}
.typing{min-height:20px;padding:0 14px;font-size:12px;opacity:.75}
.note-box{align-self:center;text-align:center;font-size:12.5px;opacity:.8;padding:4px 8px}
form.fields{display:flex;flex-direction:column;gap:8px;padding:10px;border-radius:12px;background:rgba(127,127,127,.08)}
label{display:flex;flex-direction:column;gap:3px;font-size:12.5px}
input,select,textarea{width:100%;border:1px solid rgba(127,127,127,.45);border-radius:8px;padding:8px 10px;background:var(--bg);color:var(--fg);font-size:14px}
[aria-invalid=true]{border-color:var(--err)}
.error{color:var(--err);font-size:12px}
.composer{display:flex;gap:8px;align-items:flex-end;padding:10px;border-top:1px solid rgba(127,127,127,.25)}
.composer textarea,.composer input{resize:none;max-height:120px}
.composer button{flex:none;height:38px;min-width:38px;border:0;border-radius:10px;background:var(--p);color:var(--on-p);padding:0 12px}
.list{flex:1;overflow-y:auto;margin:0;padding:8px;list-style:none}
.list button{display:flex;justify-content:space-between;gap:8px;width:100%;text-align:start;border:0;border-radius:10px;padding:10px 12px;background:transparent;color:var(--fg)}
.list button:hover{background:rgba(127,127,127,.12)}
.list .count{background:#cf222e;color:#fff;border-radius:10px;padding:0 7px;font-size:12px}
.links{display:flex;justify-content:space-between;padding:0 14px 6px;font-size:12.5px}
.links button{border:0;background:none;color:var(--fg);text-decoration:underline;padding:0}
@media (max-width:480px){.panel{inset:0;width:100%;height:100%;border-radius:0}input,select,textarea{font-size:16px}}
`;
