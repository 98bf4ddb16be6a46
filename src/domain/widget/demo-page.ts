/**
 * The demo site (a pretend shop) that `npm run dev` serves at /demo with the real snippet, so a new user sees
 * the widget working at once. Also the backdrop of the README's screenshots (test/browser/screenshots.test.ts).
 */
import { widgetSnippet } from './snippet';

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>Acme Outdoor · Parley demo</title>
<style>
body{margin:0;font:16px/1.6 Georgia,serif;color:#24292f;background:#f6f3ee}
header{padding:18px 32px;background:#2d3b2f;color:#f6f3ee;display:flex;justify-content:space-between;align-items:center}
header b{font-size:22px;letter-spacing:.04em}
main{max-width:760px;margin:0 auto;padding:32px}
h1{font-size:34px;line-height:1.2;margin:8px 0 16px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(200px,1fr));gap:16px;margin:28px 0}
.card{background:#fff;border-radius:12px;padding:16px;box-shadow:0 1px 3px rgba(0,0,0,.08)}
.try{background:#fff;border:1px dashed #8c959f;border-radius:12px;padding:16px}
.try button{margin:4px 6px 4px 0;padding:8px 12px;border-radius:8px;border:1px solid #2d3b2f;background:#fff;cursor:pointer;font:14px system-ui,sans-serif}
code{font-size:13px;background:#eee;padding:1px 4px;border-radius:4px}
</style></head>
<body><header><b>ACME OUTDOOR</b><span>Tents · Packs · Boots</span></header>
<main>
<h1>Gear for the long way round</h1>
<p>This is a pretend shop. The chat button in the corner is Parley's widget, loaded by the snippet below exactly as a
customer's site would load it. Messages you send appear in the demo workspace's inbox
(<code>GET /v3/conversations</code> with the token <code>npm run dev</code> printed; every call is in the
<a href="/docs">API reference</a>).</p>
<div class="cards"><div class="card"><b>Ridge 2 tent</b><p>Two people, 1.9 kg, three seasons.</p></div>
<div class="card"><b>Trail 40 pack</b><p>Forty litres, a frame that breathes.</p></div>
<div class="card"><b>Scree boots</b><p>Resoleable, broken in by the second day.</p></div></div>
<div class="try"><p><b>Try the browser commands</b></p>
<button onclick="kw('open')">kw('open')</button>
<button onclick="kw('open',{message:'Is the Ridge 2 tent in stock?'})">kw('open', { message })</button>
<button onclick="kw('toggle')">kw('toggle')</button>
<button onclick="kw('identify',{name:'Ada Lovelace',email:'ada@example.com'})">kw('identify', …)</button>
<button onclick="kw('reset')">kw('reset')</button>
<p>Land with <a href="?utm_source=newsletter&amp;utm_campaign=autumn&amp;gclid=demo-click">campaign parameters</a> to see
the origin reach the contact.</p></div>
</main>
</body></html>`;

/** The demo site's HTML with the snippet for `workspaceId`, loading the widget from `origin`. */
export function demoPage(origin: string, workspaceId: string): string {
	const log =
		"<script>kw('on','conversation_started',function(c){console.log('[demo] conversation started',c.id)})</script>";
	return PAGE.replace('</body>', `${widgetSnippet(origin, workspaceId)}${log}</body>`);
}
