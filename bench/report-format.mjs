// The cells and tables the benchmark's reports share: plain text for stdout, Markdown for bench/results.

/** A figure, or `n/a` when it was not measured. */
/** A figure to three decimals (null stays null). */
export const round = (value, digits = 3) => (value === null ? null : Number(value.toFixed(digits)));
/** a / b to three decimals; null when either is missing or b is 0. */
export const ratio = (a, b) => (a === null || b === null || b === 0 ? null : round(a / b));

export const show = (value, suffix = '') => (value === null || value === undefined ? 'n/a' : `${value}${suffix}`);

/** p50 / p90 / p99 / mean / max of a latency summary (load.mjs `latencySummary`). */
export const latencies = (l) =>
	`${show(l.p50Ms)} / ${show(l.p90Ms)} / ${show(l.p99Ms)} / ${show(l.meanMs)} / ${show(l.maxMs)} ms`;

/** Columns padded to their widest cell: the first left-aligned, the figures right-aligned. */
export function textTable(header, rows) {
	const widths = header.map((_, i) => Math.max(...[header, ...rows].map((row) => row[i].length)));
	const line = (row) => row.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i]))).join('  ');
	return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

export function markdownTable(header, rows) {
	const line = (row) => `| ${row.join(' | ')} |`;
	const rule = header.map((_, i) => (i === 0 ? '---' : '---:'));
	return [line(header), line(rule), ...rows.map(line)].join('\n');
}

/**
 * The file a `--only <section>` run writes (bench/results/<section>.md): the machine, GET /health of the same
 * run (`health`: how this section states it), the section's own lines, and whether the run was valid.
 */
export function sectionOnlyMarkdown(results, { title, only, health, section }) {
	const m = results.machine;
	const lines = [
		`# Parley benchmark, ${title} only, ${results.date}`,
		'',
		`Machine: ${m.hostname}, ${m.cpuModel} (${m.cpus} CPUs), ${m.memoryGiB} GiB RAM, ${m.platform}. ` +
			`Node ${results.node}, wrangler ${results.wrangler}. GET /health in the same run: ${health} under ` +
			`${results.settings.concurrency} concurrent clients.`,
		'',
		`\`npm run bench -- --only ${only}\`: only this section, so bench/results/latest.md (a full run) is left as it was.`,
		'',
		...section,
		`Run valid: ${results.valid ? 'yes' : 'NO'}.`,
	];
	if (results.warnings.length > 0) lines.push('', '## Warnings', '', ...results.warnings.map((w) => `- ${w}`));
	return `${lines.join('\n')}\n`;
}

/** GET /health of a run as the sections' files state it: its throughput and its median. */
export const healthRpsAndP50 = (health) => `${show(health.rps)} req/s, p50 ${show(health.p50Ms, ' ms')}`;
