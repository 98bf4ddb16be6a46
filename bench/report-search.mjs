// The search part of the bench report (bench/search.mjs measures it), as the file of `--only search`.
import { markdownTable, sectionOnlyMarkdown, show } from './report-format.mjs';

const pair = (l) => `${show(l.p50Ms)} / ${show(l.p99Ms)} ms`;
const rows = (r) => (r.rowsRead ? `${r.rowsRead.median} (${r.rowsRead.min} to ${r.rowsRead.max})` : 'n/a');

function stageRows(stage) {
	const at = stage.neighbour
		? `${stage.messages.toLocaleString('en')} messages beside ${stage.neighbour.toLocaleString('en')} newer matching ones of another workspace`
		: `${stage.messages.toLocaleString('en')} messages`;
	const query = (name, r) => [
		`${at}: ${name} "${r.query}"`,
		pair(r),
		`${show(r.p50VsHealth)} / ${show(r.p99VsHealth)}`,
		rows(r),
		show(r.hitsOnPage),
	];
	return [
		[`${at}: GET /health`, pair(stage.health), '1 / 1', '', ''],
		query('one word', stage.oneWord),
		query('two words', stage.twoWords),
	];
}

/** bench/results/search.md. */
export function searchMarkdown(results) {
	const { stages } = results.search;
	const section = [
		'## Message search (GET /v3/conversations/search), one request at a time',
		'',
		`${stages.at(-1).conversations.toLocaleString('en')} conversations in one workspace (the last stage adds a second workspace's newer messages, every one saying both query words: the index holds the workspace, decision 0079, so the searched workspace's figures must not move); each message says eight words of a 512-word vocabulary (a word is in about 1.6 % of messages; both words of the two-word query in about 0.02 %). A page is 20 hits, newest first. Rows read: D1's \`meta.rows_read\` for the request (Server-Timing \`d1-rows\`), median (min to max): each hit the FTS5 index yields (it stops at the page's 21st), and the rows the page joins to them (the message, its conversation, contact, last message and tags), for the contact and the message reads sent together. D1 counts the rows a virtual table yields, not the index pages it reads inside (a count(*) of 20,000 FTS matches reads 20,000 rows, its LIMIT 20 newest-first read 19), so the index's own work shows in the latency.`,
		'',
		markdownTable(
			['figure', 'p50 / p99', 'ratio to GET /health (p50 / p99)', 'D1 rows read', 'hits on the page'],
			stages.flatMap(stageRows),
		),
		'',
		`Seeding (SQL through \`wrangler d1 execute --local\`, each message indexed by the FTS trigger as in production): ${stages
			.map((s) =>
				s.neighbour
					? `${show(s.seedSeconds, ' s')} for the other workspace's ${s.neighbour.toLocaleString('en')}`
					: `${show(s.seedSeconds, ' s')} up to ${s.messages.toLocaleString('en')}`,
			)
			.join(', ')}.`,
		'',
	];
	const first = stages[0].health;
	return sectionOnlyMarkdown(results, {
		title: 'search',
		only: 'search',
		health: `p50 ${show(first.p50Ms, ' ms')} (one at a time)`,
		section,
	});
}
