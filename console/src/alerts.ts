/**
 * Alerts in an open console (docs/console.md, Alerts): the unread counts kept live from the inbox feed and
 * shown in the tab's title; each `alert` frame of the feed chimes (when the member chose the sound) and, while
 * the tab is hidden, shows a desktop notification whose click brings the tab back on the conversation. The
 * console's service worker (public/sw.js) is registered here: it shows the alerts pushed while no console is
 * open, and a browser subscribed to push is kept subscribed with the deployment's current key.
 */
import { useEffect, useRef } from 'preact/hooks';
import { useLocation } from 'wouter-preact';
import type { Alert } from '../../src/model/alerts';
import { useRefreshUnread, useUnreadCounts } from './data/alerts';
import { useFeedAlert, useFeedEvent } from './feed';
import { t } from './i18n';

export const SERVICE_WORKER = '/console/sw.js';
export const SERVICE_WORKER_SCOPE = '/console/';

/** An alert's notification title, in the console's language. */
export function alertTitle(alert: Alert): string {
	const who = alert.title ?? t('alert.someone', { id: (alert.contactId ?? '').slice(-5).toUpperCase() });
	return t(`alert.${alert.kind}`, { who });
}

let audio: AudioContext | undefined;

/** A short two-note chime, made with WebAudio (no file to load): 120 ms at 880 Hz, then 1320 Hz. */
export function chime(): void {
	try {
		audio ??= new AudioContext();
		void audio.resume();
		const start = audio.currentTime;
		[880, 1320].forEach((frequency, i) => {
			const context = audio as AudioContext;
			const tone = context.createOscillator();
			const gain = context.createGain();
			tone.frequency.value = frequency;
			const at = start + i * 0.13;
			gain.gain.setValueAtTime(0.0001, at);
			gain.gain.exponentialRampToValueAtTime(0.2, at + 0.01);
			gain.gain.exponentialRampToValueAtTime(0.0001, at + 0.12);
			tone.connect(gain).connect(context.destination);
			tone.start(at);
			tone.stop(at + 0.13);
		});
	} catch {
		// No audio here (or not allowed before the page was used): the alert still shows.
	}
}

/** Shows the desktop notification of an alert, when the tab is hidden and the browser allows it. */
function notify(alert: Alert, open: (conversationId: string) => void): void {
	if (document.visibilityState !== 'hidden') return;
	if (typeof Notification === 'undefined' || Notification.permission !== 'granted') return;
	const notification = new Notification(alertTitle(alert), {
		body: alert.text,
		tag: alert.id,
		data: { conversationId: alert.conversationId },
	});
	notification.onclick = () => {
		window.focus();
		if (alert.conversationId) open(alert.conversationId);
		notification.close();
	};
}

/** Registers the console's service worker (idempotent), where the browser has them. */
export function registerServiceWorker(): Promise<ServiceWorkerRegistration | null> {
	if (!('serviceWorker' in navigator)) return Promise.resolve(null);
	return navigator.serviceWorker.register(SERVICE_WORKER, { scope: SERVICE_WORKER_SCOPE }).catch(() => null);
}

/** The number in the tab's title: what waits for me (mine and unassigned). */
export function titleCount(counts: { mine: number; unassigned: number } | undefined): number {
	return counts ? counts.mine + counts.unassigned : 0;
}

/** Mounted once by the shell: the counts, the title, the alerts and the service worker. */
export function useAlerts(): void {
	const [, navigate] = useLocation();
	const counts = useUnreadCounts();
	const refresh = useRefreshUnread();
	const open = (conversationId: string) => navigate(`/conversations/${conversationId}`);

	// Any change to a conversation may change a count: read them again at most every half second.
	const pending = useRef<ReturnType<typeof setTimeout>>();
	useFeedEvent((event) => {
		if (event !== 'reconnected' && event.type === 'member.status_changed') return;
		if (pending.current) return;
		pending.current = setTimeout(() => {
			pending.current = undefined;
			void refresh();
		}, 500);
	});
	useEffect(() => () => clearTimeout(pending.current), []);

	const n = titleCount(counts.data);
	useEffect(() => {
		document.title = n > 0 ? `(${n}) ${t('app.name')}` : t('app.name');
	}, [n]);
	useEffect(
		() => () => {
			document.title = t('app.name');
		},
		[],
	);

	useFeedAlert(({ alert, sound }) => {
		if (sound) chime();
		notify(alert, open);
	});

	// A click on a pushed notification with this console open: the service worker asks it to open the conversation.
	const openRef = useRef(open);
	openRef.current = open;
	useEffect(() => {
		void registerServiceWorker();
		if (!('serviceWorker' in navigator)) return;
		const onMessage = (event: MessageEvent) => {
			const data = event.data as { type?: string; conversationId?: string } | null;
			if (data?.type === 'parley-open' && data.conversationId) openRef.current(data.conversationId);
		};
		navigator.serviceWorker.addEventListener('message', onMessage);
		return () => navigator.serviceWorker.removeEventListener('message', onMessage);
	}, []);
}
