import { describe, expect, it } from 'vitest';
import { type Preset, presetProblems, presetRequest } from '../../src/engines/actions/presets';

const preset = (p: Partial<Preset> & Pick<Preset, 'product' | 'operation'>): Preset => ({
	token: 'tok',
	fields: {},
	...p,
});

describe('integration presets', () => {
	it('build each product’s request: its base URL, path, authentication and mapped body', () => {
		const hubspot = presetRequest(
			preset({
				product: 'hubspot',
				operation: 'upsert_contact',
				fields: { email: 'ana@example.com', firstname: 'Ana "A"' },
			}),
		);
		expect(hubspot).toMatchObject({
			method: 'POST',
			url: 'https://api.hubapi.com/crm/v3/objects/contacts/batch/upsert',
			headers: { Authorization: 'Bearer tok', 'Content-Type': 'application/json' },
		});
		expect(JSON.parse(hubspot.body ?? '')).toEqual({
			inputs: [
				{ idProperty: 'email', id: 'ana@example.com', properties: { email: 'ana@example.com', firstname: 'Ana "A"' } },
			],
		});
		const rd = presetRequest(
			preset({ product: 'rd_station', operation: 'upsert_contact', fields: { email: 'a+b@example.com', name: 'Ana' } }),
		);
		expect(rd).toMatchObject({
			method: 'PATCH',
			url: 'https://api.rd.services/platform/contacts/email:a%2Bb%40example.com',
			headers: { Authorization: 'Bearer tok' },
		});
		expect(JSON.parse(rd.body ?? '')).toEqual({ name: 'Ana' });
		const conversion = presetRequest(
			preset({
				product: 'rd_station',
				operation: 'conversion',
				event: 'bot-lead',
				fields: { email: 'ana@example.com' },
			}),
		);
		expect(JSON.parse(conversion.body ?? '')).toEqual({
			event_type: 'CONVERSION',
			event_family: 'CDP',
			payload: { conversion_identifier: 'bot-lead', email: 'ana@example.com' },
		});
		const salesforce = presetRequest(
			preset({
				product: 'salesforce',
				operation: 'update_fields',
				baseUrl: 'https://acme.my.salesforce.com/',
				object: 'Opportunity',
				recordId: '006XX',
				fields: { StageName: 'Qualification', Empty: ' ' },
			}),
		);
		expect(salesforce).toMatchObject({
			method: 'PATCH',
			url: 'https://acme.my.salesforce.com/services/data/v60.0/sobjects/Opportunity/006XX',
			headers: { Authorization: 'Bearer tok' },
		});
		expect(JSON.parse(salesforce.body ?? '')).toEqual({ StageName: 'Qualification' });
		const pipedrive = presetRequest(
			preset({ product: 'pipedrive', operation: 'custom', method: 'GET', path: 'v1/deals/7', fields: { x: '1' } }),
		);
		expect(pipedrive).toEqual({
			method: 'GET',
			url: 'https://api.pipedrive.com/v1/deals/7',
			headers: { 'x-api-token': 'tok', 'Content-Type': 'application/json' },
		});
	});

	it('name what a preset lacks, at its field', () => {
		expect(presetProblems(preset({ product: 'hubspot', operation: 'create_opportunity' }))).toEqual([
			{ path: ['operation'], message: 'hubspot offers upsert_contact, create_deal, create_object_record' },
		]);
		expect(presetProblems(preset({ product: 'salesforce', operation: 'update_fields' })).map((p) => p.path)).toEqual([
			['baseUrl'],
			['object'],
			['recordId'],
		]);
		expect(presetProblems(preset({ product: 'rd_station', operation: 'conversion' })).map((p) => p.path)).toEqual([
			['event'],
			['fields', 'email'],
		]);
		expect(presetProblems(preset({ product: 'hubspot', operation: 'create_deal', fields: { dealname: 'X' } }))).toEqual(
			[],
		);
	});
});
