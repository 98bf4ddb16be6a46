// Campaigns and a scenario's inbound webhook made in the console, in a real Chromium against `wrangler dev`:
// a widget campaign composed (its Liquid refused at its field, then previewed live and for a real contact with
// the audience's count), tested, scheduled and sent; an e-mail one's subject and a WhatsApp one's number asked
// for at their fields; and a scenario's webhook created in the builder, whose signed example, pasted into a
// shell, starts a run. Each is checked through the API. One signed-in page for the whole file.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { consolePage } from './console-page';
import { api, closeBrowser, launchBrowser, workspace } from './harness';
import { baseUrl } from './widget-page';

const N = 137;
const { token } = workspace(N);
let page: Page;

beforeAll(async () => {
	const context = await (await launchBrowser()).newContext();
	await context.grantPermissions(['clipboard-read', 'clipboard-write']);
	page = await consolePage(context, N);
	page.on('dialog', (dialog) => void dialog.accept());
});
afterAll(closeBrowser);

/** The options a contact field's datalist offers now: each contact's id and how it is shown. */
function offered(datalistTestId: string) {
	return page
		.getByTestId(datalistTestId)
		.locator('option')
		.evaluateAll((options) => (options as HTMLOptionElement[]).map((o) => ({ value: o.value, label: o.label })));
}

async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
	const res = await api(baseUrl, token, method, path, body);
	expect(res.status, `${method} ${path}: ${JSON.stringify(res.body)}`).toBeLessThan(300);
	return res.body as T;
}

type Campaign = { id: string; name: string; status: string; template: string; sendAtLocal: string | null };

describe('Campaigns', () => {
	it('composes a widget campaign, previews it with its audience count, tests, schedules and sends it', async () => {
		const ana = await call<{ id: string }>('POST', '/v3/contacts', { name: 'Ana', email: 'ana@vip.example' });
		const bia = await call<{ id: string }>('POST', '/v3/contacts', { name: 'Bia', email: 'bia@vip.example' });
		await call('POST', '/v3/contacts', { name: 'Caio' });
		for (const { id } of [ana, bia]) await call('PUT', `/v3/contacts/${id}/tags/vip`);

		await page.goto(`${baseUrl}/console/campaigns`);
		const composer = page.getByRole('form', { name: 'New campaign' });
		await composer.getByLabel('Name').fill('Black Friday');
		await composer.getByLabel('Message').fill('Hi {{ contact.name | upcase }}, our sale starts today {% if %}');
		await composer.getByLabel('Tags (every one, separated by commas)').fill('vip');
		// The live preview renders with the API's Liquid, and says why it cannot.
		await expect.poll(() => composer.locator('#campaign-template-preview').textContent()).toMatch(/.+/);
		await composer.getByRole('button', { name: 'Create draft' }).click();
		await expect.poll(() => composer.locator('#campaign-template-problem').textContent()).toMatch(/.+/);
		expect((await call<{ data: Campaign[] }>('GET', '/v3/campaigns')).data).toEqual([]);

		await composer.getByLabel('Message').fill('Hi {{ contact.name | upcase }}, our sale starts today!');
		await expect
			.poll(() => composer.locator('#campaign-template-preview').textContent())
			.toBe('Hi ANA SOUZA, our sale starts today!');
		await composer.getByRole('button', { name: 'Create draft' }).click();
		await page.getByRole('heading', { name: 'Black Friday', level: 1 }).waitFor();
		const id = new URL(page.url()).pathname.split('/').pop() as string;
		expect(await call<Campaign>('GET', `/v3/campaigns/${id}`)).toMatchObject({
			status: 'draft',
			template: 'Hi {{ contact.name | upcase }}, our sale starts today!',
			audience: { kind: 'filter', tags: ['vip'] },
		});

		await expect
			.poll(() => page.getByTestId('audience-count').textContent())
			.toBe('The audience holds 2 contacts now (opted-out contacts are left out when sending).');
		// Typing a name offers the contacts it matches, each chosen by its id (the datalist's options).
		const asContact = page.getByLabel(/^As contact/);
		await asContact.fill('bia');
		await expect
			.poll(() => offered('preview-contact-options'))
			.toEqual([{ value: bia.id, label: 'Bia · bia@vip.example' }]);
		await asContact.fill(bia.id);
		await page.getByRole('button', { name: 'Preview', exact: true }).click();
		await expect.poll(() => page.locator('.preview-text').textContent()).toBe('Hi BIA, our sale starts today!');

		await page.getByLabel(/^Send a test to contact/).fill(ana.id);
		await page.getByRole('button', { name: 'Send test' }).click();
		await page.getByText('Test sent.').waitFor();
		const conversations = await call<{ data: { lastMessage: { text: string } | null }[] }>(
			'GET',
			`/v3/conversations?contactId=${ana.id}&include=lastMessage`,
		);
		expect(conversations.data[0]?.lastMessage?.text).toBe('Hi ANA, our sale starts today!');

		await page.getByLabel(/^Send at/).fill('2030-01-15T09:00');
		await page.getByRole('button', { name: 'Schedule' }).click();
		await expect
			.poll(async () => await call<Campaign>('GET', `/v3/campaigns/${id}`))
			.toMatchObject({ status: 'scheduled', sendAtLocal: '2030-01-15T09:00' });

		await page.getByRole('button', { name: 'Send now' }).click();
		await expect
			.poll(async () => (await call<Campaign>('GET', `/v3/campaigns/${id}`)).status)
			.toMatch(/^(sending|sent)$/);
		expect(await page.getByRole('link', { name: 'Results' }).getAttribute('href')).toBe(
			`/console/reports?campaign=${id}`,
		);
	});

	it('asks an e-mail campaign for its subject and a WhatsApp one for its number, at their fields', async () => {
		await page.goto(`${baseUrl}/console/campaigns`);
		const composer = page.getByRole('form', { name: 'New campaign' });
		await composer.getByLabel('Name').fill('Newsletter');
		await composer.getByLabel('Channel').selectOption('email');
		await composer.getByLabel('Message').fill('Hello {{ contact.name }}');
		await composer.getByRole('button', { name: 'Create draft' }).click();
		await expect.poll(() => composer.locator('#campaign-subject-problem').textContent()).toContain('subject');
		expect(await composer.getByLabel('Subject').getAttribute('aria-invalid')).toBe('true');

		await composer.getByLabel('Channel').selectOption('whatsapp');
		expect(await composer.getByLabel('Message').count()).toBe(0);
		await composer.getByRole('button', { name: 'Create draft' }).click();
		await expect.poll(() => composer.locator('#campaign-number-problem').textContent()).toContain('number');
		expect((await call<{ data: Campaign[] }>('GET', '/v3/campaigns')).data.map((c) => c.name)).not.toContain(
			'Newsletter',
		);

		// A list audience: a contact found by its name is added to the list by its id.
		const caio = (await call<{ data: { id: string }[] }>('GET', '/v3/contacts?q=caio')).data[0];
		await composer.getByLabel('A list of contacts').check();
		const add = composer.getByLabel(/^Add a contact/);
		await add.fill('cai');
		await expect
			.poll(async () => (await offered('audience-add-contact-options')).map((o) => o.label))
			.toEqual(['Caio']);
		await add.fill(caio?.id ?? '');
		expect(await composer.getByLabel('Contact ids (one a line)').inputValue()).toBe(caio?.id);
		expect(await add.inputValue()).toBe('');
	});
});

describe("A scenario's inbound webhook", () => {
	it('is created in the builder; its signed example, pasted into a shell, starts a run; rotating retires it', async () => {
		const scenario = await call<{ id: string }>('POST', '/v3/scenarios', {
			name: 'Orders in',
			definition: {
				start: 'make',
				steps: [{ id: 'make', type: 'create_contact', name: 'Buyer', email: '{{ email }}', variable: 'contact' }],
			},
		});
		await call('POST', `/v3/scenarios/${scenario.id}/publish`);
		await page.goto(`${baseUrl}/console/scenarios/${scenario.id}`);
		await page.getByRole('button', { name: 'Settings' }).click();
		await page.getByLabel('Webhook name').fill('Shop');
		await page.getByRole('button', { name: 'Create webhook' }).click();
		const secret = (await page.getByTestId('inbound-webhook-secret').textContent()) as string;
		expect(secret).toMatch(/^whsec_/);
		const hooks = await call<{ data: { id: string; url: string }[] }>('GET', `/v3/scenarios/${scenario.id}/webhooks`);
		expect(hooks.data).toHaveLength(1);
		expect(await page.getByTestId('inbound-webhook-url').textContent()).toBe(hooks.data[0]?.url);

		const example = (await page.getByTestId('signed-example').textContent()) as string;
		expect(example).toContain(secret);
		const run = async (script: string) => (await promisify(execFile)('bash', ['-c', script])).stdout;
		expect(JSON.parse(await run(example))).toMatchObject({ runId: expect.any(String) });
		await expect
			.poll(async () => (await call<{ data: unknown[] }>('GET', `/v3/scenarios/${scenario.id}/runs`)).data.length)
			.toBe(1);

		await page.getByRole('button', { name: 'Rotate secret' }).click();
		await expect.poll(() => page.getByTestId('inbound-webhook-secret').textContent()).not.toBe(secret);
		// The old example is refused now; the new one (shown with the new secret) is taken.
		expect(await run(`${example} -o /dev/null -w '%{http_code}'`)).toBe('401');
		const rotated = (await page.getByTestId('signed-example').textContent()) as string;
		expect(JSON.parse(await run(rotated))).toMatchObject({ runId: expect.any(String) });
	});
});
