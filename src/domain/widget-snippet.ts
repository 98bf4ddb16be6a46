/**
 * The snippet a site owner pastes before </body>: it defines `kw`, queues calls made before widget.js
 * arrives, and loads the script asynchronously so it never blocks rendering. widget.js is an ES module
 * (its own scope: nothing leaks into the page's globals; the chat is imported next to it). Under 600 bytes.
 */
export function widgetSnippet(widgetOrigin: string, workspaceId: string): string {
	return [
		'<script>',
		'(function(w,d,s){w.kw=w.kw||function(){(w.kw.q=w.kw.q||[]).push(arguments)};',
		`s=d.createElement('script');s.type='module';s.async=1;s.src=${JSON.stringify(`${widgetOrigin}/widget.js`)};d.body.appendChild(s)})(window,document);`,
		`kw('init',{workspaceId:${JSON.stringify(workspaceId)}});`,
		'</script>',
	].join('');
}
