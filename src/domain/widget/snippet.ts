/**
 * The snippet a site owner pastes before </body>: it defines `kw`, queues calls made before widget.js
 * arrives, and imports widget.js once the page has loaded (so the widget never delays the page's own load
 * event, let alone its rendering). widget.js is an ES module: its own scope, nothing leaks into the page's
 * globals, and the chat is imported next to it. `import()` rather than a script element: a script's `src` set
 * from a string is a sink that a page enforcing Trusted Types refuses without a policy, and `import()` is none;
 * under a nonce-based Content-Security-Policy the import inherits the snippet's nonce. Under 600 bytes.
 */
export function widgetSnippet(widgetOrigin: string, workspaceId: string): string {
	// A JSON string inside <script>: `<` escaped, so no value can close the element.
	const js = (value: string) => JSON.stringify(value).replaceAll('<', '\\u003c');
	return [
		'<script>',
		'(function(w,d){w.kw=w.kw||function(){(w.kw.q=w.kw.q||[]).push(arguments)};',
		`function l(){import(${js(`${widgetOrigin}/widget.js`)})}`,
		"d.readyState=='complete'?l():w.addEventListener('load',l)})(window,document);",
		`kw('init',{workspaceId:${js(workspaceId)}});`,
		'</script>',
	].join('');
}
