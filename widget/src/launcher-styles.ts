/**
 * The launcher's CSS (the panel's is in chat/styles.ts); colors come from the --p/--on-p/--bg/--fg variables
 * the launcher sets from the config. A module of its own, without the DOM: the build also writes these rules
 * into a stylesheet file (vite.config.ts), for browsers that link it instead of adopting them.
 */
export const LAUNCHER_STYLE = `
:host{all:initial}
.root{font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,Helvetica,Arial,sans-serif;color:var(--fg);letter-spacing:normal;text-transform:none;text-align:start;word-spacing:normal}
.root *{box-sizing:border-box;font:inherit}
[hidden]{display:none!important}
.launcher{position:fixed;bottom:20px;right:20px;z-index:2147483000;width:56px;height:56px;border:0;border-radius:50%;padding:0;margin:0;background:var(--p);color:var(--on-p);cursor:pointer;box-shadow:0 4px 16px rgba(0,0,0,.22);display:flex;align-items:center;justify-content:center;transition:transform .15s}
.launcher:hover{transform:scale(1.06)}
.launcher:focus-visible,.cta:focus-visible,.menu :focus-visible{outline:3px solid var(--p);outline-offset:3px}
.launcher svg{width:26px;height:26px;fill:currentColor}
.left .launcher{right:auto;left:20px}
.dot{position:absolute;right:1px;bottom:1px;width:13px;height:13px;border-radius:50%;border:2px solid #fff;background:#1a7f37}
.dot.away{background:#8c959f}
.badge{position:absolute;top:-4px;right:-4px;min-width:20px;height:20px;padding:0 6px;border-radius:10px;background:#cf222e;color:#fff;font-size:12px;font-weight:600;line-height:20px;text-align:center}
.cta{position:fixed;bottom:32px;right:88px;z-index:2147483000;max-width:260px;margin:0;padding:9px 14px;border:0;border-radius:18px;background:var(--bg);color:var(--fg);box-shadow:0 2px 12px rgba(0,0,0,.18);cursor:pointer;text-align:start}
.left .cta{right:auto;left:88px}
.cta .greet{display:block}.cta .act{display:block;color:var(--p);margin-top:2px}
.menu{position:fixed;bottom:88px;right:20px;z-index:2147483000;width:250px;padding:14px;border-radius:14px;background:var(--bg);color:var(--fg);box-shadow:0 6px 24px rgba(0,0,0,.2);display:flex;flex-direction:column;gap:8px}
.left .menu{right:auto;left:20px}
.menu p{margin:0 0 4px}
.menu button,.menu a{display:block;width:100%;padding:10px 12px;border:0;border-radius:10px;background:var(--p);color:var(--on-p);text-align:center;text-decoration:none;cursor:pointer}
.menu a{background:#25d366;color:#06361a}
@media (max-width:480px){.open .launcher{display:none}}
@media (prefers-reduced-motion:reduce){.root *{transition:none!important;animation:none!important}}
`;
