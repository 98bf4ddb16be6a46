// `npm run mail:demo [-- --text "…" --from ana@example.com --port 8787]`: mails a message into the demo
// workspace of a running `npm run dev`, through wrangler's local Email Routing endpoint, which hands the raw
// message to the Worker's email() handler as Email Routing would. Each run is a new mail (its own Message-ID),
// so it starts a conversation (or, with --reply-to <Message-ID>, threads into the one that mail started).
import { randomUUID } from 'node:crypto';
import { parseArgs } from 'node:util';
import { DEMO_INBOX } from './local-db.mjs';

const { values } = parseArgs({
	options: {
		text: { type: 'string', default: 'Hello! My order #4411 has not arrived yet. Can you check?' },
		subject: { type: 'string', default: 'Where is my order?' },
		from: { type: 'string', default: 'ana.souza@example.com' },
		name: { type: 'string', default: 'Ana Souza' },
		port: { type: 'string', default: process.env.PORT ?? '8787' },
		'reply-to': { type: 'string' },
	},
});

const messageId = `${randomUUID()}@example.com`;
const raw = [
	`From: ${values.name} <${values.from}>`,
	`To: ${DEMO_INBOX}`,
	`Subject: ${values.subject}`,
	`Date: ${new Date().toUTCString()}`,
	`Message-ID: <${messageId}>`,
	...(values['reply-to'] ? [`In-Reply-To: <${values['reply-to']}>`, `References: <${values['reply-to']}>`] : []),
	'MIME-Version: 1.0',
	'Content-Type: text/plain; charset=utf-8',
	'',
	values.text,
	'',
].join('\r\n');

const url = new URL(`http://localhost:${values.port}/cdn-cgi/handler/email`);
url.searchParams.set('from', values.from);
url.searchParams.set('to', DEMO_INBOX);
let res;
try {
	res = await fetch(url, { method: 'POST', body: raw });
} catch (error) {
	console.error(
		`npm run mail:demo: nothing answers on port ${values.port}; is \`npm run dev\` running? (${error.message})`,
	);
	process.exit(1);
}
if (!res.ok) {
	console.error(`npm run mail:demo: the local Email Routing endpoint answered ${res.status}: ${await res.text()}`);
	process.exit(1);
}
console.log(`Mailed <${messageId}> from ${values.from} to ${DEMO_INBOX}: see the console's inbox.`);
