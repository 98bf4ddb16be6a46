import { describe, expect, it } from 'vitest';
import { api, d1Timing, seedCustomFields, seedWorkspace } from './factories';

/** The D1 statements a page of each list costs, whatever its size (the bound is 3). */
describe('list cost', () => {
	it('keeps every new list at one or two D1 statements a page', async () => {
		const { workspaceId, token } = await seedWorkspace();
		await seedCustomFields(workspaceId, { plan: ['free', 'pro'] });
		const contact = (await (await api(token, 'POST', '/v3/contacts', { name: 'Ana' })).json()) as { id: string };
		await api(token, 'POST', `/v3/contacts/${contact.id}/notes`, { text: 'x' });
		await api(token, 'POST', '/v3/funnels', { name: 'Sales', stages: ['New', 'Won'] });
		const deal = (await (await api(token, 'POST', '/v3/deals', { funnel: 'Sales', name: 'Acme' })).json()) as {
			id: string;
		};
		await api(token, 'POST', '/v3/team/groups', { name: 'Support' });
		await api(token, 'POST', '/v3/tasks', { title: 'Call' });
		for (const [path, statements] of [
			['/v3/custom-fields', 1],
			['/v3/team/members', 1],
			['/v3/team/groups', 1],
			['/v3/funnels', 1],
			['/v3/deals', 1],
			['/v3/tasks', 1],
			['/v3/contacts?customField=plan:pro', 2],
			[`/v3/contacts/${contact.id}/notes`, 2],
			[`/v3/deals/${deal.id}/notes`, 2],
		] as const) {
			for (const limit of [1, 100]) {
				const res = await api(token, 'GET', `${path}${path.includes('?') ? '&' : '?'}limit=${limit}`);
				expect(res.status, path).toBe(200);
				expect(d1Timing(res), path).toBe(`d1;desc="${statements} queries"`);
			}
		}
	});
});
