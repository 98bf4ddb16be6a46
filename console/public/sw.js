/**
 * The console's service worker (scope /console/): it shows the alerts Parley pushes (Web Push, RFC 8291) to a
 * member with no console open, and a click on one opens its conversation: in a console already open (which it
 * asks, by message, to show it) or in a new window. The payload is an alert (src/model/alerts.ts): facts, worded
 * here in the browser's language. Plain JavaScript served as it is, so its address never changes.
 */
const WORDS = {
	en: {
		new_conversation: 'New conversation: {who}',
		assigned: 'Assigned to you: {who}',
		message: '{who}',
		mention: 'You were mentioned: {who}',
		rule: '{who}',
		someone: 'Visitor {id}',
	},
	pt: {
		new_conversation: 'Nova conversa: {who}',
		assigned: 'Atribuída a você: {who}',
		message: '{who}',
		mention: 'Você foi mencionado: {who}',
		rule: '{who}',
		someone: 'Visitante {id}',
	},
};

function titleOf(alert) {
	const words = (self.navigator.language || 'en').toLowerCase().startsWith('pt') ? WORDS.pt : WORDS.en;
	const who =
		alert.title ||
		words.someone.replace(
			'{id}',
			String(alert.contactId || '')
				.slice(-5)
				.toUpperCase(),
		);
	return (words[alert.kind] || '{who}').replace('{who}', who);
}

self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', (event) => event.waitUntil(self.clients.claim()));

self.addEventListener('push', (event) => {
	let alert;
	try {
		alert = event.data.json();
	} catch {
		return;
	}
	event.waitUntil(
		self.registration.showNotification(titleOf(alert), {
			body: alert.text || '',
			tag: alert.id,
			data: { conversationId: alert.conversationId },
		}),
	);
});

self.addEventListener('notificationclick', (event) => {
	event.notification.close();
	const conversationId = event.notification.data?.conversationId ?? null;
	const path = conversationId ? `/console/conversations/${conversationId}` : '/console/';
	event.waitUntil(
		(async () => {
			const windows = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
			const open = windows.find((client) => new URL(client.url).pathname.startsWith('/console'));
			if (open) {
				open.postMessage({ type: 'parley-open', conversationId });
				// Focusing is allowed only on a real click; a console that stays behind still shows the conversation.
				await open.focus().catch(() => undefined);
				return;
			}
			await self.clients.openWindow(path);
		})(),
	);
});
