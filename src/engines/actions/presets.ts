/**
 * Built-in integrations: presets of the HTTP request for four products a Brazilian or American sales team
 * uses, each with its base URL, authentication and request shapes, so a builder maps fields instead of
 * writing requests. A preset's values are templates like any other field; once rendered, `presetRequest`
 * builds the request (bodies through JSON.stringify, so a value with quotes stays a value).
 *
 * - HubSpot (a CRM: contacts, deals, custom objects): `upsert_contact` (by e-mail), `create_deal`,
 *   `create_object_record` (`object`: the custom object's type id or name). Bearer token of a private app.
 * - RD Station Marketing (marketing automation: contacts, conversion events): `upsert_contact` (by e-mail),
 *   `conversion` (`event`: the conversion identifier). Bearer access token.
 * - Salesforce (a CRM: opportunities, fields): `create_opportunity`, `update_fields` (`object` and
 *   `recordId`). `baseUrl`: the org's instance URL. Bearer access token.
 * - Pipedrive (a CRM: field mapping, custom operations): `create_person` (fields mapped to Pipedrive's keys,
 *   custom fields by their hash key), `custom` (`method` and `path` under the API). API token header.
 *
 * `fields` maps the product's field names to templates: `{ "email": "{{ email }}", "firstname": "{{ name }}" }`.
 */
import { z } from '@hono/zod-openapi';
import { keyedRecord } from '../../lib/schema-rules';
import { template } from './fields';

const PRESET_OPERATIONS = {
	hubspot: ['upsert_contact', 'create_deal', 'create_object_record'],
	rd_station: ['upsert_contact', 'conversion'],
	salesforce: ['create_opportunity', 'update_fields'],
	pipedrive: ['create_person', 'custom'],
} as const;

export type PresetProduct = keyof typeof PRESET_OPERATIONS;

const DEFAULT_BASE: Record<PresetProduct, string | null> = {
	hubspot: 'https://api.hubapi.com',
	rd_station: 'https://api.rd.services',
	// Each org has its own instance URL.
	salesforce: null,
	pipedrive: 'https://api.pipedrive.com',
};

/** The Salesforce REST API version the presets speak. */
const SALESFORCE_API = 'v60.0';

export const presetSchema = z
	.strictObject({
		product: z
			.enum(Object.keys(PRESET_OPERATIONS) as [PresetProduct, ...PresetProduct[]])
			.openapi({ description: 'The product: `hubspot`, `rd_station`, `salesforce` or `pipedrive`.' }),
		operation: z.string().max(40).openapi({ description: 'What to do (see the README’s table per product).' }),
		token: template(2000).openapi({ description: 'The credential: an access token, or Pipedrive’s API token.' }),
		baseUrl: template(300).optional().openapi({
			description: 'The API’s address: required for Salesforce (the instance URL); the product’s own otherwise.',
		}),
		fields: keyedRecord(z.string().max(100), template(2000))
			.default({})
			.openapi({ description: 'The product’s field names, each mapped to a template.' }),
		object: z
			.string()
			.max(100)
			.optional()
			.openapi({ description: 'HubSpot custom object, or the Salesforce object of `update_fields`.' }),
		recordId: template(200).optional().openapi({ description: 'The Salesforce record `update_fields` changes.' }),
		event: template(200).optional().openapi({ description: 'RD Station’s conversion identifier.' }),
		method: z
			.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE'])
			.optional()
			.openapi({ description: 'The method of a Pipedrive `custom` operation.' }),
		path: template(500)
			.optional()
			.openapi({ description: 'The path of a Pipedrive `custom` operation, under the API: `/v1/deals/{{ deal }}`.' }),
	})
	.openapi('IntegrationPreset');

export type Preset = z.infer<typeof presetSchema>;

/** What is wrong with a preset (an operation its product lacks, a missing parameter), each with its field. */
export function presetProblems(preset: Preset): Array<{ path: string[]; message: string }> {
	const problems: Array<{ path: string[]; message: string }> = [];
	const operations: readonly string[] = PRESET_OPERATIONS[preset.product];
	if (!operations.includes(preset.operation)) {
		problems.push({ path: ['operation'], message: `${preset.product} offers ${operations.join(', ')}` });
		return problems;
	}
	const needs = (field: keyof Preset, why: string) => {
		if (preset[field] === undefined) problems.push({ path: [field], message: `required ${why}` });
	};
	if (preset.product === 'salesforce') needs('baseUrl', 'for Salesforce (the instance URL)');
	if (preset.operation === 'create_object_record') needs('object', 'for a custom object record');
	if (preset.operation === 'update_fields') {
		needs('object', 'to update fields');
		needs('recordId', 'to update fields');
	}
	if (preset.operation === 'conversion') needs('event', 'for a conversion');
	if (preset.operation === 'custom') {
		needs('method', 'for a custom operation');
		needs('path', 'for a custom operation');
	}
	if ((preset.operation === 'upsert_contact' || preset.operation === 'conversion') && !preset.fields.email) {
		problems.push({ path: ['fields', 'email'], message: 'required: contacts are found by e-mail' });
	}
	return problems;
}

export interface PresetRequest {
	method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
	url: string;
	headers: Record<string, string>;
	body?: string;
}

/** The request a rendered preset makes. */
export function presetRequest(preset: Preset): PresetRequest {
	const base = (preset.baseUrl?.trim() || DEFAULT_BASE[preset.product] || '').replace(/\/+$/, '');
	const fields = Object.fromEntries(Object.entries(preset.fields).filter(([, value]) => value.trim() !== ''));
	const bearer = { Authorization: `Bearer ${preset.token.trim()}` };
	const json = (
		method: PresetRequest['method'],
		path: string,
		body: unknown,
		headers: Record<string, string> = bearer,
	): PresetRequest => ({
		method,
		url: `${base}${path}`,
		headers: { ...headers, 'Content-Type': 'application/json' },
		...(method === 'GET' || method === 'DELETE' ? {} : { body: JSON.stringify(body) }),
	});
	const segment = (value: string | undefined) => encodeURIComponent(value?.trim() ?? '');
	switch (`${preset.product}:${preset.operation}`) {
		case 'hubspot:upsert_contact':
			return json('POST', '/crm/v3/objects/contacts/batch/upsert', {
				inputs: [{ idProperty: 'email', id: fields.email, properties: fields }],
			});
		case 'hubspot:create_deal':
			return json('POST', '/crm/v3/objects/deals', { properties: fields });
		case 'hubspot:create_object_record':
			return json('POST', `/crm/v3/objects/${segment(preset.object)}`, { properties: fields });
		case 'rd_station:upsert_contact': {
			const { email, ...rest } = fields;
			return json('PATCH', `/platform/contacts/email:${segment(email)}`, rest);
		}
		case 'rd_station:conversion':
			return json('POST', '/platform/events?event_type=CONVERSION', {
				event_type: 'CONVERSION',
				event_family: 'CDP',
				payload: { conversion_identifier: preset.event?.trim(), ...fields },
			});
		case 'salesforce:create_opportunity':
			return json('POST', `/services/data/${SALESFORCE_API}/sobjects/Opportunity`, fields);
		case 'salesforce:update_fields':
			return json(
				'PATCH',
				`/services/data/${SALESFORCE_API}/sobjects/${segment(preset.object)}/${segment(preset.recordId)}`,
				fields,
			);
		case 'pipedrive:create_person':
			return json('POST', '/v1/persons', fields, { 'x-api-token': preset.token.trim() });
		case 'pipedrive:custom': {
			const path = `/${(preset.path ?? '').trim().replace(/^\/+/, '')}`;
			return json(preset.method ?? 'GET', path, fields, { 'x-api-token': preset.token.trim() });
		}
		default:
			throw new Error(`no preset ${preset.product}:${preset.operation}`);
	}
}
