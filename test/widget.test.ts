import { env } from 'cloudflare:workers';
import { describe, expect, it } from 'vitest';
import { publicConfigKey } from '../src/domain/widget/config';
import { DEFAULT_WIDGET_SETTINGS } from '../src/domain/widget/settings';
import { api, expectError, randomIp, seedCustomFields, seedWorkspace } from './factories';

describe('GET /v3/widget/settings', () => {
	it('returns the full defaults before anything was saved', async () => {
		const { token } = await seedWorkspace();
		const res = await api(token, 'GET', '/v3/widget/settings');
		expect(res.status).toBe(200);
		expect(await res.json()).toEqual(DEFAULT_WIDGET_SETTINGS);
	});
});

describe('PUT /v3/widget/settings', () => {
	it('stores a partial update, merges nested objects and returns the full settings', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['Free', 'Pro'] });
		const update = {
			primaryColor: '#FF5500',
			welcomeMessage: 'Olá! 🎉 Como podemos ajudar?',
			offlineMessage: 'Deixe sua mensagem',
			businessHours: { enabled: true, timeZone: 'America/Sao_Paulo' },
			messagingBubble: { enabled: true, phoneNumber: '+5511999998888', prefilledMessage: 'Oi!' },
			requiredFields: ['name', 'email'],
			customFields: [{ name: 'plan', label: 'Plan', type: 'select', options: ['Free', 'Pro'], required: true }],
		};
		const res = await api(token, 'PUT', '/v3/widget/settings', update);
		expect(res.status).toBe(200);
		const saved = (await res.json()) as typeof DEFAULT_WIDGET_SETTINGS;
		expect(saved).toMatchObject(update);
		// Untouched fields keep their values; the nested schedule keeps its weekly hours.
		expect(saved.ctaText).toBe(DEFAULT_WIDGET_SETTINGS.ctaText);
		expect(saved.businessHours.weekly).toEqual(DEFAULT_WIDGET_SETTINGS.businessHours.weekly);
		const again = await api(token, 'GET', '/v3/widget/settings');
		expect(await again.json()).toEqual(saved);
	});

	it('never loses a concurrent update silently: each is kept or refused with 409', async () => {
		const { token } = await seedWorkspace();
		const updates = [
			{ ctaText: 'Talk to us' },
			{ welcomeMessage: 'Welcome!' },
			{ offlineMessage: 'Back soon' },
			{ displayName: 'Acme Support' },
			{ primaryColor: '#123456' },
			{ textColor: '#654321' },
		];
		const answers = await Promise.all(updates.map((u) => api(token, 'PUT', '/v3/widget/settings', u)));
		const final = (await (await api(token, 'GET', '/v3/widget/settings')).json()) as Record<string, unknown>;
		let kept = 0;
		for (const [i, res] of answers.entries()) {
			if (res.status === 200) {
				expect(final).toMatchObject(updates[i] as Record<string, unknown>);
				kept++;
			} else {
				await expectError(res, 409);
			}
		}
		expect(kept).toBeGreaterThan(0);
	});

	it('rewrites the public widget config in KV before answering', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await api(token, 'PUT', '/v3/widget/settings', { ctaText: 'First' });
		await api(token, 'PUT', '/v3/widget/settings', { ctaText: 'Second', position: 'left' });
		const cached = (await env.WIDGET_CONFIG.get(publicConfigKey(workspaceId), 'json')) as {
			workspaceId: string;
			ctaText: string;
			position: string;
			version: number;
		};
		expect(cached).toMatchObject({ workspaceId, ctaText: 'Second', position: 'left' });
		expect(cached.version).toBeGreaterThan(0);
	});

	const invalid: [string, unknown, string][] = [
		['a color that is not hex', { primaryColor: 'red' }, 'json.primaryColor'],
		['an unknown position', { position: 'top' }, 'json.position'],
		['an unknown field', { favouriteColor: '#fff' }, 'favouriteColor'],
		['an unknown time zone', { businessHours: { timeZone: 'Mars/Olympus' } }, 'json.businessHours.timeZone'],
		[
			'an interval that ends before it starts',
			{
				businessHours: {
					weekly: { ...DEFAULT_WIDGET_SETTINGS.businessHours.weekly, mon: [{ start: '18:00', end: '09:00' }] },
				},
			},
			'json.businessHours.weekly.mon.0',
		],
		[
			'a select field without options',
			{ customFields: [{ name: 'plan', label: 'Plan', type: 'select', required: true }] },
			'json.customFields.0.options',
		],
		['a required field outside name/email/phone', { requiredFields: ['age'] }, 'json.requiredFields.0'],
		['a bubble enabled without a number', { messagingBubble: { enabled: true } }, 'json.messagingBubble.phoneNumber'],
		['a logo over http', { logoUrl: 'http://example.com/logo.png' }, 'json.logoUrl'],
		['a theme other than auto, light or dark', { theme: 'sepia' }, 'json.theme'],
	];
	for (const [name, body, field] of invalid) {
		it(`rejects ${name} with 422 naming ${field}, and changes nothing`, async () => {
			const { token } = await seedWorkspace();
			const res = await api(token, 'PUT', '/v3/widget/settings', body);
			const error = await expectError(res, 422);
			expect(error.message).toContain(field);
			expect(await (await api(token, 'GET', '/v3/widget/settings')).json()).toEqual(DEFAULT_WIDGET_SETTINGS);
		});
	}
});

describe('the theme setting', () => {
	it('is auto by default, and a forced theme reaches the public config the widget loads', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const config = async () =>
			(
				(await (
					await api(null, 'GET', `/widget/${workspaceId}/config`, undefined, { 'CF-Connecting-IP': randomIp() })
				).json()) as { theme: string }
			).theme;
		expect(await config()).toBe('auto');
		const res = await api(token, 'PUT', '/v3/widget/settings', { theme: 'dark' });
		expect(res.status).toBe(200);
		expect(((await res.json()) as { theme: string }).theme).toBe('dark');
		expect(await config()).toBe('dark');
	});
});

describe('GET /v3/widget/info', () => {
	it('gives the workspace id, a snippet under 600 bytes with the widget URL, and availability', async () => {
		const { workspaceId, token } = await seedWorkspace();
		const info = (await (await api(token, 'GET', '/v3/widget/info')).json()) as {
			workspaceId: string;
			snippet: string;
			widgetScriptUrl: string;
			businessHoursEnabled: boolean;
			online: boolean;
		};
		expect(info.workspaceId).toBe(workspaceId);
		expect(info.widgetScriptUrl).toBe('https://parley.test/widget.js');
		expect(info.snippet).toContain(info.widgetScriptUrl);
		expect(info.snippet).toContain(workspaceId);
		expect(new TextEncoder().encode(info.snippet).byteLength).toBeLessThan(600);
		expect(info).toMatchObject({ businessHoursEnabled: false, online: true });
	});

	it('shows the team offline on a holiday when business hours are considered', async () => {
		const { token } = await seedWorkspace();
		const today = new Date().toISOString().slice(0, 10);
		await api(token, 'PUT', '/v3/widget/settings', {
			businessHours: { enabled: true, timeZone: 'UTC', holidays: [today] },
			periodMessages: { holiday: 'Closed for the holiday' },
		});
		const info = (await (await api(token, 'GET', '/v3/widget/info')).json()) as Record<string, unknown>;
		expect(info).toMatchObject({
			businessHoursEnabled: true,
			online: false,
			period: 'holiday',
			availabilityMessage: 'Closed for the holiday',
		});
	});
});
