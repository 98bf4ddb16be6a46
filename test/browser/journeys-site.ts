// The widget's journeys about the site around it (journeys.ts runs them after the chat's): business hours in
// the schedule's zone, the messaging-app bubble, a phone's screen, the keyboard alone, and strict
// Content-Security-Policies with both installs.
import { randomUUID } from 'node:crypto';
import { expect } from 'vitest';
import { api } from './harness';
import {
	attribute,
	chatsUnderPolicy,
	count,
	focused,
	hoursAroundNow,
	IN_WIDGET,
	type Journey,
	layout,
	logText,
	onlyConversation,
	openChat,
	send,
	shown,
	strictPolicy,
	text,
	WATCH_VIOLATIONS,
} from './journey-kit';
import { baseUrl, conversation, conversations, putSettings, widgetHtml } from './widget-page';

export const SITE_JOURNEYS: Journey[] = [
	{
		name: "follows business hours in the schedule's time zone: online inside them, away outside, asking for an e-mail",
		async run(j) {
			// Computed in the visitor's browser with Intl: an hour either side of now, today only, in a zone half
			// an hour off the machine's, so an engine that got the zone, the weekday or the minutes wrong says away.
			const { timeZone, weekday, start, end } = hoursAroundNow();
			const week = { mon: [], tue: [], wed: [], thu: [], fri: [], sat: [], sun: [] };
			const periodMessages = {
				inHours: 'We answer within minutes.',
				outOfHours: 'We are away; we answer by e-mail.',
				weekend: 'We are away; we answer by e-mail.',
			};
			await putSettings(j.token, {
				businessHours: { enabled: true, timeZone, weekly: { ...week, [weekday]: [{ start, end }] }, holidays: [] },
				periodMessages,
			});
			await j.visit();
			expect(await attribute(j.page, '.launcher', 'aria-label')).toBe('Chat with Support, Online');
			await openChat(j.page);
			expect(await text(j.page, 'header p')).toBe('We answer within minutes.');
			// Hours on no day: away whatever the engine's clock says.
			await putSettings(j.token, { businessHours: { enabled: true, timeZone, weekly: week, holidays: [] } });
			await j.visit();
			// The stored config draws the launcher at once; the revalidated one replaces it.
			await expect.poll(() => attribute(j.page, '.launcher', 'aria-label')).toBe('Chat with Support, Away');
			expect(await count(j.page, '.launcher .dot.away')).toBe(1);
			await openChat(j.page);
			expect(await text(j.page, 'header p')).toBe('We are away; we answer by e-mail.');
			expect(await logText(j.page)).toContain('Leave us a message');
			await send(j.page, 'Do you have size 44?');
			await expect.poll(() => text(j.page, '.error')).toBe('Required');
			expect(await conversations(j.token)).toEqual([]);
			await j.page.type('input[name=email]', 'buyer@example.com');
			await j.page.click('.composer button[type=submit]');
			const id = await onlyConversation(j.token);
			await expect.poll(() => logText(j.page)).toContain('We got your message and will reply by e-mail');
			expect((await conversation(j.token, id)).contact.claimedEmail).toBe('buyer@example.com');
		},
	},
	{
		name: 'offers the messaging app with the pre-filled text and a reference that keeps the campaign',
		async run(j) {
			await putSettings(j.token, {
				messagingBubble: { enabled: true, phoneNumber: '+5511999998888', prefilledMessage: 'Hi! I saw your ad' },
			});
			await j.visit({ path: '?utm_source=google&utm_campaign=spring&gclid=Cj0-bubble' });
			await j.page.click('.launcher');
			await expect.poll(() => count(j.page, '.menu a')).toBe(1);
			const href = (await attribute(j.page, '.menu a', 'href')) ?? '';
			const ref = /^https:\/\/wa\.me\/5511999998888\?text=Hi!%20I%20saw%20your%20ad%20\(ref%20([0-9A-Z]{8})\)$/.exec(
				href,
			)?.[1];
			expect(ref, href).toBeDefined();
			// What the link's click records, without leaving for an app this machine cannot reach.
			await j.page.run(
				`${IN_WIDGET}var a=root.querySelector('.menu a');a.addEventListener('click',function(e){e.preventDefault()});a.click()`,
			);
			await expect
				.poll(async () => (await api(baseUrl, j.token, 'GET', `/v3/widget/handoffs/${ref}`)).status)
				.toBe(200);
			const { body } = await api(baseUrl, j.token, 'GET', `/v3/widget/handoffs/${ref}`);
			expect(body).toMatchObject({
				ref,
				channel: 'whatsapp',
				origin: { utmSource: 'google', utmCampaign: 'spring', gclid: 'Cj0-bubble' },
			});
			// The other choice opens the chat here.
			await j.page.click('.launcher');
			await expect.poll(() => shown(j.page, '.menu button')).toBe(true);
			await j.page.click('.menu button');
			await expect.poll(() => shown(j.page, '.panel')).toBe(true);
		},
	},
	{
		name: 'fills the screen of a phone',
		viewport: { width: 390, height: 760 },
		async run(j) {
			await j.visit();
			await openChat(j.page);
			const panel = await layout(j.page, '.panel');
			expect(panel?.viewport.width).toBeLessThan(480);
			expect(panel).toMatchObject({ left: 0, top: 0, width: panel?.viewport.width, height: panel?.viewport.height });
			expect(await shown(j.page, '.launcher')).toBe(false);
			await send(j.page, 'From my phone');
			await expect.poll(() => count(j.page, '.msg.mine.sent')).toBe(1);
		},
	},
	{
		name: 'works from the keyboard alone: Tab to the launcher, Enter, type, send, Escape returns the focus',
		async run(j) {
			await j.visit();
			// The call to action comes first, then the launcher.
			await j.page.keyboard('Tab');
			await j.page.keyboard('Tab');
			expect(await focused(j.page)).toBe('button.launcher');
			await j.page.keyboard('Enter');
			await expect.poll(() => focused(j.page)).toBe('textarea.');
			await j.page.keyboard({ text: 'Typed without a mouse' });
			await j.page.keyboard('Enter');
			await expect.poll(() => logText(j.page)).toContain('Typed without a mouse');
			await onlyConversation(j.token);
			await j.page.keyboard('Escape');
			await expect.poll(() => shown(j.page, '.panel')).toBe(false);
			expect(await focused(j.page)).toBe('button.launcher');
		},
	},
	{
		name: "runs from the nonced snippet under a strict policy with 'strict-dynamic' and Trusted Types, no violation",
		async run(j) {
			await putSettings(j.token, { primaryColor: '#b4235a' });
			const nonce = randomUUID().replaceAll('-', '');
			const html = widgetHtml(j.workspaceId, { head: WATCH_VIOLATIONS }).replaceAll(
				'<script>',
				`<script nonce="${nonce}">`,
			);
			await j.visit({
				html,
				headers: { 'Content-Security-Policy': strictPolicy(`'nonce-${nonce}' 'strict-dynamic'`) },
			});
			await chatsUnderPolicy(j, '#b4235a');
		},
	},
	{
		name: 'runs from one script element with data attributes, no inline script, styled from files without constructable stylesheets',
		async run(j) {
			await putSettings(j.token, { primaryColor: '#1d6b42' });
			// The site's own file: the documented one-line stub, the ready call, and a browser without
			// adoptedStyleSheets (Safari before 16.4, Firefox before 101), so the widget links its two style files.
			const site = `window.kw = window.kw || function () { (kw.q = kw.q || []).push(arguments); };
kw('on', 'ready', function () { window.__ready = true; });
delete ShadowRoot.prototype.adoptedStyleSheets; delete Document.prototype.adoptedStyleSheets;
window.__violations = [];
document.addEventListener('securitypolicyviolation', function (e) { __violations.push(e.effectiveDirective + ' refused ' + (e.blockedURI || 'inline')); }, true);`;
			const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Acme bank</title>
<script src="site.js"></script>
<script type="module" src="${baseUrl}/widget.js" data-workspace-id="${j.workspaceId}" data-cta-text="Ask the bank" async></script>
</head><body><h1>Acme bank</h1><p>Welcome.</p></body></html>`;
			await j.visit({
				html,
				headers: { 'Content-Security-Policy': strictPolicy("'self'") },
				files: { 'site.js': { contentType: 'text/javascript', body: site } },
			});
			expect(await text(j.page, '.cta .act')).toBe('Ask the bank');
			await chatsUnderPolicy(j, '#1d6b42');
			expect(
				await j.page.run<string[]>(
					`${IN_WIDGET}return Array.from(root.querySelectorAll('link'),function(l){return l.href})`,
				),
			).toEqual([
				expect.stringMatching(new RegExp(`^${baseUrl}/widget-assets/launcher-[\\w-]+\\.css$`)),
				expect.stringMatching(new RegExp(`^${baseUrl}/widget-assets/panel-[\\w-]+\\.css$`)),
			]);
		},
	},
];
