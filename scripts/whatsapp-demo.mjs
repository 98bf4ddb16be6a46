// `npm run whatsapp:demo [-- --text "…" --from 5511987654321 --name "Ana Souza" --port 8787]`: plays Meta for a
// running `npm run dev`: posts a webhook, signed with the demo number's app secret as Meta signs it, carrying a
// customer's WhatsApp text message to the demo workspace's number. Each run is a new message (its own wamid);
// the same --from writes into the same conversation. Replies go to the fake Graph API (`GET <fake>/__fake/messages`).
import { createHmac, randomBytes } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEMO_NUMBER, readDemoNumber } from './whatsapp-demo-number.mjs';

const { values } = parseArgs({
	options: {
		text: { type: 'string', default: 'Hi! Is the blue backpack still in stock?' },
		from: { type: 'string', default: '5511987654321' },
		name: { type: 'string', default: 'Ana Souza' },
		port: { type: 'string', default: process.env.PORT ?? '8787' },
	},
});

const number = readDemoNumber();
if (!number) {
	console.error('npm run whatsapp:demo: no demo number yet: start `npm run dev` first (it connects one).');
	process.exit(1);
}
const payload = {
	object: 'whatsapp_business_account',
	entry: [
		{
			id: DEMO_NUMBER.businessAccountId,
			changes: [
				{
					field: 'messages',
					value: {
						messaging_product: 'whatsapp',
						metadata: { display_phone_number: '15550783881', phone_number_id: number.phoneNumberId },
						contacts: [{ profile: { name: values.name }, wa_id: values.from }],
						messages: [
							{
								from: values.from,
								id: `wamid.${randomBytes(18).toString('base64url')}`,
								timestamp: String(Math.floor(Date.now() / 1000)),
								type: 'text',
								text: { body: values.text },
							},
						],
					},
				},
			],
		},
	],
};
const body = Buffer.from(JSON.stringify(payload));
const signature = `sha256=${createHmac('sha256', number.appSecret).update(body).digest('hex')}`;
const url = `http://localhost:${values.port}/whatsapp/${number.numberId}/webhook`;
let res;
try {
	res = await fetch(url, {
		method: 'POST',
		headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': signature },
		body,
	});
} catch (error) {
	console.error(
		`npm run whatsapp:demo: nothing answers on port ${values.port}; is \`npm run dev\` running? (${error.message})`,
	);
	process.exit(1);
}
if (!res.ok) {
	console.error(`npm run whatsapp:demo: the webhook answered ${res.status}: ${await res.text()}`);
	process.exit(1);
}
console.log(
	`WhatsApp message from +${values.from} (${values.name}) to ${DEMO_NUMBER.displayPhoneNumber}: see the console's inbox.`,
);
