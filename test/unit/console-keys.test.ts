/**
 * The console's query keys (console/src/data/keys.ts): the data modules decide what a change reads again by
 * invalidating a key and every key it is a prefix of. These cases are the invalidations the data modules make,
 * run through TanStack Query's own cache: each must reach the reads it names and spare the others.
 */
import { QueryClient, type QueryKey } from '@tanstack/query-core';
import { describe, expect, it } from 'vitest';
import { keys } from '../../console/src/data/keys';

interface Case {
	name: string;
	invalidate: QueryKey;
	exact?: boolean;
	reaches: QueryKey[];
	spares: QueryKey[];
}

const cases: Case[] = [
	{
		name: 'a conversation changed: every list of conversations, not the conversation itself',
		invalidate: keys.conversations.all,
		reaches: [keys.conversations.list({ status: 'open' }), keys.conversations.ofContact('ct_1')],
		spares: [keys.conversation('cv_1'), keys.contacts.all, keys.botRuns('cv_1')],
	},
	{
		name: 'contacts merged: the lists and the merge search, not an open contact',
		invalidate: keys.contacts.all,
		reaches: [keys.contacts.list({ q: 'ana' }), keys.contacts.mergeCandidates('ana', 'ct_1')],
		spares: [keys.contact('ct_1'), keys.conversations.all],
	},
	{
		name: 'a deal moved or saved: the boards and a contact deals, not the deal or its notes',
		invalidate: keys.deals.all,
		reaches: [keys.deals.board('fn_1'), keys.deals.board(undefined), keys.deals.ofContact('ct_1')],
		spares: [keys.deal('dl_1'), keys.dealNotes('dl_1')],
	},
	{
		name: 'a task done: today’s tasks',
		invalidate: keys.tasks.all,
		reaches: [keys.tasks.today],
		spares: [],
	},
	{
		name: 'a saved reply changed: the full list and the composer’s matches',
		invalidate: keys.canned.all,
		reaches: [keys.canned.list, keys.canned.matches('ship'), keys.canned.matches(null)],
		spares: [],
	},
	{
		name: 'the team changed: members, groups, presence and sessions',
		invalidate: keys.team.all,
		reaches: [keys.team.membersOf('all'), keys.team.groups, keys.team.presence, keys.team.sessions('op_1')],
		spares: [keys.directory],
	},
	{
		name: 'a capacity saved: both lists of members (the team page’s and the capacities’), nothing else',
		invalidate: keys.team.members,
		reaches: [keys.team.membersOf('all'), keys.team.membersOf('enabled')],
		spares: [keys.team.groups, keys.team.sessions('op_1')],
	},
	{
		name: 'a session revoked: that member’s sessions',
		invalidate: keys.team.sessions('op_1'),
		reaches: [keys.team.sessions('op_1')],
		spares: [keys.team.sessions('op_2'), keys.team.membersOf('all')],
	},
	{
		name: 'a delivery re-sent: that endpoint’s deliveries under every filter, not a delivery’s detail',
		invalidate: keys.webhooks.deliveries('wh_1'),
		reaches: [keys.webhooks.deliveriesOf('wh_1', ''), keys.webhooks.deliveriesOf('wh_1', 'failed')],
		spares: [
			keys.webhooks.deliveriesOf('wh_2', ''),
			keys.webhooks.delivery('wh_1', 'dv_1', '1:succeeded:'),
			keys.webhooks.all,
		],
	},
	{
		name: 'a rule created, toggled or deleted: the list and every rule',
		invalidate: keys.rules.all,
		reaches: [keys.rules.one('ru_1')],
		spares: [keys.rules.recentExecutions],
	},
	{
		name: 'a rule saved: the list alone (the rule is the save’s answer)',
		invalidate: keys.rules.all,
		exact: true,
		reaches: [keys.rules.all],
		spares: [keys.rules.one('ru_1')],
	},
	{
		name: 'a scenario paused: the list and every scenario with its versions and runs, no bot',
		invalidate: keys.documents.all('scenario'),
		reaches: [
			keys.documents.list('scenario'),
			keys.documents.one('scenario', 'sc_1'),
			keys.documents.versions('scenario', 'sc_1'),
			keys.documents.version('scenario', 'sc_1', 2),
			keys.documents.runs('sc_1'),
		],
		spares: [keys.documents.list('bot'), keys.documents.one('bot', 'sc_1')],
	},
	{
		name: 'a document published or rolled back: it and its versions, not the list',
		invalidate: keys.documents.one('bot', 'bt_1'),
		reaches: [keys.documents.versions('bot', 'bt_1'), keys.documents.version('bot', 'bt_1', 3)],
		spares: [keys.documents.list('bot'), keys.documents.one('bot', 'bt_2')],
	},
	{
		name: 'a token regenerated: the API log under every filter',
		invalidate: keys.apiLogs.all,
		reaches: [keys.apiLogs.list({}), keys.apiLogs.list({ method: 'POST' })],
		spares: [keys.me],
	},
];

describe('console query keys', () => {
	it.each(cases)('$name', ({ invalidate, exact, reaches, spares }) => {
		const client = new QueryClient();
		for (const key of [...reaches, ...spares]) client.setQueryData(key, 'read');
		void client.invalidateQueries({ queryKey: invalidate, exact, refetchType: 'none' });
		for (const key of reaches) expect(client.getQueryState(key)?.isInvalidated, JSON.stringify(key)).toBe(true);
		for (const key of spares) expect(client.getQueryState(key)?.isInvalidated, JSON.stringify(key)).toBe(false);
	});

	it('keeps the session apart: signing in drops every other read by its first item', () => {
		const constants = [keys.directory, keys.tags, keys.funnels, keys.me, keys.conversations.all, keys.team.all];
		for (const key of constants) expect(key[0]).not.toBe(keys.session[0]);
	});

	it('names different reads differently', () => {
		expect(keys.team.membersOf('all')).not.toEqual(keys.team.membersOf('enabled'));
		expect(keys.deals.board('fn_1')).not.toEqual(keys.deals.board('fn_2'));
		expect(keys.documents.one('bot', 'x')).not.toEqual(keys.documents.one('scenario', 'x'));
	});
});
