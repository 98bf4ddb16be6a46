/**
 * The snippet a site owner pastes before </body>: it defines `kw`, queues calls made before widget.js
 * arrives, and loads widget.js once the page has loaded (so the widget never delays the page's own load
 * event, let alone its rendering). widget.js is an ES module: its own scope, nothing leaks into the page's
 * globals, and the chat is imported next to it. Under 600 bytes.
 */
export function widgetSnippet(widgetOrigin: string, workspaceId: string): string {
	// A JSON string inside <script>: `<` escaped, so no value can close the element.
	const js = (value: string) => JSON.stringify(value).replaceAll('<', '\\u003c');
	return [
		'<script>',
		'(function(w,d){w.kw=w.kw||function(){(w.kw.q=w.kw.q||[]).push(arguments)};',
		`function l(){var s=d.createElement('script');s.type='module';s.src=${js(`${widgetOrigin}/widget.js`)};d.head.appendChild(s)}`,
		"d.readyState=='complete'?l():w.addEventListener('load',l)})(window,document);",
		`kw('init',{workspaceId:${js(workspaceId)}});`,
		'</script>',
	].join('');
}
