// The alerts part of the bench report (bench/alerts.mjs measures it), as the file of `--only alerts`.
import { markdownTable, sectionOnlyMarkdown, show } from './report-format.mjs';

const pair = (l) => `${show(l.p50Ms)} / ${show(l.p99Ms)} ms`;

/** bench/results/alerts.md. */
export function alertsMarkdown(results) {
	const { alerts } = results;
	const section = [
		'## A visitor writes: the desktop notification on the assignee’s hidden console tab',
		'',
		`One console in Chromium, signed in as the assignee and open on another page (Contacts) with its tab hidden; four visitors' conversations assigned to that member (a visitor may send 20 messages a minute), written in turn. Each of ${alerts.samples} messages (one at a time, after three unrecorded) is timed from the visitor's POST to the console's Notification: the room stores the message, its event goes through the events Queue (a batch window of 1 s, as deployed) to the consumer, which sends the hub's \`alert\` frame down the console's feed. GET /health one request at a time is the baseline, in the same run.`,
		'',
		markdownTable(
			['figure', 'p50 / p99', 'ratio to GET /health (p50 / p99)'],
			[
				['GET /health', pair(alerts.health), '1 / 1'],
				[
					'visitor message → desktop notification',
					pair(alerts.notification),
					`${show(alerts.p50VsHealth)} / ${show(alerts.p99VsHealth)}`,
				],
			],
		),
		'',
		'Almost all of it is the events Queue’s batch window (`max_batch_timeout` 1 s in wrangler.toml): a lone event waits the whole window before its batch is consumed; the rest (store, consume, frame, notification) is some 40 ms. Issue 37 takes up the Queue’s waits on the paths a person watches.',
		'',
	];
	return sectionOnlyMarkdown(results, {
		title: 'alerts',
		only: 'alerts',
		health: `p50 ${show(alerts.health.p50Ms, ' ms')} (one at a time)`,
		section,
	});
}
