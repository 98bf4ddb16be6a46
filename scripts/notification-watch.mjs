// An init script for a console page, shared by the browser tests and the bench: it records every desktop
// notification the page makes (`window.__notes`, each with `performance.now()` when it was made), and lets the
// caller hide the tab (`window.__setHidden(true)`): headless Chromium shows every page as visible. Its
// `Notification.permission` answers what the Permissions API says (the context's grant), which headless
// Chromium's own getter does not follow (it says "denied" whatever was granted).
export const WATCH_NOTIFICATIONS = `(() => {
	const Real = window.Notification;
	const notes = [];
	window.__notes = notes;
	class Watched extends Real {
		constructor(title, options) {
			super(title, options);
			notes.push({ title, body: options && options.body, tag: options && options.tag, at: performance.now(), note: this });
		}
	}
	let permission = Real.permission;
	navigator.permissions.query({ name: 'notifications' }).then((status) => {
		permission = status.state === 'prompt' ? 'default' : status.state;
	});
	Object.defineProperty(Watched, 'permission', { get: () => permission });
	Watched.requestPermission = (...args) => Real.requestPermission(...args);
	window.Notification = Watched;
	let hidden = false;
	Object.defineProperty(Document.prototype, 'visibilityState', { configurable: true, get: () => (hidden ? 'hidden' : 'visible') });
	Object.defineProperty(Document.prototype, 'hidden', { configurable: true, get: () => hidden });
	window.__setHidden = (next) => { hidden = next; document.dispatchEvent(new Event('visibilitychange')); };
})();`;
