import { useEffect, useState } from 'preact/hooks';
import { registerServiceWorker } from '../../alerts';
import {
	type AlertSettings,
	useAlertSettings,
	useDeletePushSubscription,
	usePushSubscriptions,
	useSaveAlertSettings,
	useSavePushSubscription,
} from '../../data/alerts';
import { t } from '../../i18n';
import { Problem } from '../../ui/problem';
import { Section, Switch } from './form';

type Choice = keyof AlertSettings;
const CHOICES: Choice[] = ['newConversation', 'assigned', 'message', 'mention', 'rule', 'sound'];

/** The VAPID key as the Push API takes it. */
function keyBytes(base64url: string): Uint8Array<ArrayBuffer> {
	const binary = atob(base64url.replace(/-/g, '+').replace(/_/g, '/'));
	return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}

const sameKey = (a: ArrayBuffer | null | undefined, b: Uint8Array) =>
	!!a && a.byteLength === b.byteLength && new Uint8Array(a).every((byte, i) => byte === b[i]);

/**
 * Settings › Notifications, its alerts: each kind on or off and the sound, saved as each switch moves; the
 * desktop notifications' permission (asked from the button's click, as browsers require); push on this device.
 */
export function AlertsSection() {
	const settings = useAlertSettings();
	const save = useSaveAlertSettings();
	const [problem, setProblem] = useState<unknown>(null);
	const [saved, setSaved] = useState(false);
	const toggle = async (key: Choice, on: boolean) => {
		setSaved(false);
		setProblem(null);
		try {
			await save({ [key]: on });
			setSaved(true);
		} catch (error) {
			setProblem(error);
		}
	};
	return (
		<Section id="notifications-alerts" title={t('alerts.title')} intro={t('alerts.intro')}>
			{settings.error && <Problem error={settings.error} retry={() => settings.refetch()} />}
			{settings.data &&
				CHOICES.map((key) => (
					<Switch
						key={key}
						id={`alert-${key}`}
						label={t(`alerts.${key}`)}
						checked={settings.data[key]}
						onChange={(on) => void toggle(key, on)}
					/>
				))}
			{problem !== null && <Problem error={problem} />}
			<p class="muted" aria-live="polite">
				{saved ? t('alerts.saved') : ''}
			</p>
			<DesktopPermission />
			<PushOnThisDevice />
		</Section>
	);
}

function DesktopPermission() {
	const supported = typeof Notification !== 'undefined';
	const [permission, setPermission] = useState(supported ? Notification.permission : 'denied');
	return (
		<div class="field">
			<h3>{t('alerts.desktop')}</h3>
			{!supported ? (
				<p class="muted">{t('alerts.desktop.unsupported')}</p>
			) : permission === 'granted' ? (
				<p class="muted">{t('alerts.desktop.granted')}</p>
			) : permission === 'denied' ? (
				<p class="muted">{t('alerts.desktop.denied')}</p>
			) : (
				<button type="button" onClick={async () => setPermission(await Notification.requestPermission())}>
					{t('alerts.desktop.allow')}
				</button>
			)}
		</div>
	);
}

function PushOnThisDevice() {
	const subscriptions = usePushSubscriptions();
	const saveSubscription = useSavePushSubscription();
	const deleteSubscription = useDeletePushSubscription();
	const [endpoint, setEndpoint] = useState<string | null>(null);
	const [failure, setFailure] = useState<string | null>(null);
	const supported = 'serviceWorker' in navigator && 'PushManager' in window;
	const publicKey = subscriptions.data?.publicKey;
	// This browser's subscription: kept, and made again when the deployment's key changed.
	useEffect(() => {
		if (!supported || !publicKey) return;
		void (async () => {
			const registration = await registerServiceWorker();
			const current = await registration?.pushManager.getSubscription();
			if (!current) return;
			if (!sameKey(current.options.applicationServerKey, keyBytes(publicKey))) {
				await current.unsubscribe();
				return;
			}
			setEndpoint(current.endpoint);
		})();
	}, [publicKey]);
	if (!supported) return <p class="muted">{t('alerts.push.unsupported')}</p>;
	const mine = subscriptions.data?.data.find((s) => s.endpoint === endpoint);
	const turnOn = async () => {
		setFailure(null);
		try {
			if (!publicKey) return;
			const registration = await registerServiceWorker();
			if (!registration) throw new Error('no service worker');
			const subscription = await registration.pushManager.subscribe({
				userVisibleOnly: true,
				applicationServerKey: publicKey,
			});
			await saveSubscription(subscription.toJSON() as Parameters<typeof saveSubscription>[0]);
			setEndpoint(subscription.endpoint);
		} catch (error) {
			setFailure(error instanceof Error ? error.message : String(error));
		}
	};
	const turnOff = async () => {
		const registration = await registerServiceWorker();
		await (await registration?.pushManager.getSubscription())?.unsubscribe();
		if (mine) await deleteSubscription(mine.id);
		setEndpoint(null);
	};
	return (
		<div class="field">
			<h3>{t('alerts.push')}</h3>
			{mine ? (
				<>
					<p class="muted">{t('alerts.push.active')}</p>
					<button type="button" onClick={() => void turnOff()}>
						{t('alerts.push.off')}
					</button>
				</>
			) : (
				<button type="button" onClick={() => void turnOn()} disabled={!publicKey}>
					{t('alerts.push.on')}
				</button>
			)}
			{failure && <p class="problem">{t('alerts.push.failed', { reason: failure })}</p>}
		</div>
	);
}
