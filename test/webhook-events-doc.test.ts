import { describe, expect, it } from 'vitest';
import { deliveryBody } from '../src/domain/webhooks/deliveries';
import { catalogueMarkdown, exampleEvent } from '../src/events/catalogue-doc';
import { DOMAIN_EVENT_TYPES, domainEventSchema } from '../src/model/events';

describe('the webhook event catalogue (docs/WEBHOOK_EVENTS.md)', () => {
	it('has an example of every type that the catalogue’s own schema accepts', () => {
		for (const type of DOMAIN_EVENT_TYPES) {
			const parsed = domainEventSchema.safeParse(exampleEvent(type));
			expect(parsed.success, `${type}: ${parsed.error?.message}`).toBe(true);
		}
	});

	it('is the committed document (run vitest with -u after changing an event)', async () => {
		const document = catalogueMarkdown(deliveryBody);
		for (const type of DOMAIN_EVENT_TYPES) expect(document).toContain(`## ${type}\n`);
		await expect(document).toMatchFileSnapshot('../docs/WEBHOOK_EVENTS.md');
	});
});
