/**
 * One chart of the Reports page: uPlot on a canvas that follows its container's width and the system's light or
 * dark scheme, and beside it the same figures as a table (the canvas says nothing to a screen reader, and the
 * table is what the browser test compares with the API).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';
import { t } from '../../i18n';

/** A number drawn, and how a person reads it (null: nothing to measure). */
export interface ChartSeries {
	label: string;
	values: Array<number | null>;
	/** Bars (the default) or a line through the points. */
	kind?: 'bars' | 'line';
}

export interface ChartProps {
	/** The chart's heading, also the table's caption. */
	title: string;
	/** The label of each category along the x axis (a day, a utm source, a status). */
	categories: string[];
	/** Each category's value as the API names it (a date, a utm value; empty for none), kept in the table. */
	keys?: string[];
	/** The header of the categories' column in the table. */
	categoryHeader: string;
	series: ChartSeries[];
	/** How a value reads on the axis and in the table (default: a count). */
	format?: (value: number) => string;
	height?: number;
}

/** The palette's CSS variables (set in reports.css for light and dark), one per series in order. */
const PALETTE = ['--chart-1', '--chart-2', '--chart-3', '--chart-4'];
const darkScheme = matchMedia('(prefers-color-scheme: dark)');

const counts = new Intl.NumberFormat(document.documentElement.lang);
export const formatCount = (value: number) => counts.format(value);

/** The scheme's name, re-read when the system switches between light and dark (the charts redraw in its colours). */
function useScheme(): 'light' | 'dark' {
	const [dark, setDark] = useState(darkScheme.matches);
	useEffect(() => {
		const onChange = () => setDark(darkScheme.matches);
		darkScheme.addEventListener('change', onChange);
		return () => darkScheme.removeEventListener('change', onChange);
	}, []);
	return dark ? 'dark' : 'light';
}

export function Chart(props: ChartProps) {
	const { title, categories, series, height } = props;
	const format = props.format ?? formatCount;
	const box = useRef<HTMLDivElement>(null);
	const scheme = useScheme();
	const latest = useRef({ props, format });
	latest.current = { props, format };
	// Drawn again only when what it shows changes (or the scheme does), not on every render of the page.
	const drawn = JSON.stringify([categories, series, height, scheme]);

	useEffect(() => {
		const element = box.current;
		if (!element) return;
		const { props, format } = latest.current;
		const plot = new uPlot(
			plotOptions(element, props, format),
			[props.categories.map((_, i) => i), ...props.series.map((s) => s.values)],
			element,
		);
		// The canvas is drawn for the width the container has now, and again whenever it changes.
		const resize = new ResizeObserver(() => plot.setSize({ width: element.clientWidth, height: plot.height }));
		resize.observe(element);
		return () => {
			resize.disconnect();
			plot.destroy();
		};
	}, [drawn]);

	return (
		<figure class="chart" data-scheme={scheme}>
			<figcaption>{title}</figcaption>
			<div ref={box} class="chart-canvas" aria-hidden="true" />
			<details>
				<summary>{t('reports.showFigures')}</summary>
				<FiguresTable {...props} format={format} />
			</details>
		</figure>
	);
}

/** The chart's figures as a table: a row per category, a column per series; each value in a `<data>` element. */
function FiguresTable(props: ChartProps & { format: (n: number) => string }) {
	const { title, categories, keys, categoryHeader, series, format } = props;
	return (
		<div class="table-wrap">
			<table>
				<caption>{title}</caption>
				<thead>
					<tr>
						<th scope="col">{categoryHeader}</th>
						{series.map((s) => (
							<th key={s.label} scope="col">
								{s.label}
							</th>
						))}
					</tr>
				</thead>
				<tbody>
					{categories.map((category, i) => (
						<tr key={i}>
							<th scope="row">{keys ? <data value={keys[i] ?? ''}>{category}</data> : category}</th>
							{series.map((s) => {
								const value = s.values[i];
								return (
									<td key={s.label}>
										{value == null ? t('common.empty') : <data value={String(value)}>{format(value)}</data>}
									</td>
								);
							})}
						</tr>
					))}
				</tbody>
			</table>
		</div>
	);
}

/** uPlot's options: categories at 0..n-1 on x, colours read from the page's CSS variables at drawing time. */
function plotOptions(element: HTMLElement, props: ChartProps, format: (n: number) => string): uPlot.Options {
	const style = getComputedStyle(element);
	const color = (name: string) => style.getPropertyValue(name).trim();
	const { categories, series } = props;
	const grouped = series.filter((s) => (s.kind ?? 'bars') === 'bars').length;
	let bar = 0;
	const axis = {
		stroke: color('--muted'),
		grid: { stroke: color('--line'), width: 1 },
		ticks: { stroke: color('--line'), width: 1 },
	};
	return {
		width: Math.max(element.clientWidth, 120),
		height: props.height ?? 220,
		legend: { show: series.length > 1, live: false },
		cursor: { show: false },
		scales: {
			x: { time: false, range: [-0.5, categories.length - 0.5] },
			// Headroom above the tallest bar; a scale of at least 0..1 when everything is zero.
			y: { range: (_, min, max) => [Math.min(0, min), max > 0 ? max * 1.15 : 1] },
		},
		axes: [
			{
				...axis,
				grid: { show: false },
				splits: () => categoryTicks(categories.length, element.clientWidth),
				values: (_, splits) => splits.map((i) => categories[i] ?? ''),
			},
			{
				...axis,
				size: 56,
				values: (_, splits) => splits.map((v) => (Number.isInteger(v) || !isCount(format) ? format(v) : '')),
			},
		],
		series: [
			{},
			...series.map((s, i): uPlot.Series => {
				const stroke = color(PALETTE[i % PALETTE.length] as string);
				if (s.kind === 'line')
					return {
						label: s.label,
						stroke,
						width: 2,
						points: { size: 5, fill: stroke },
						value: (_, v) => (v == null ? '' : format(v)),
					};
				// Several bar series stand side by side in each category: each takes its share of the slot.
				const share = 0.7 / grouped;
				const align = grouped === 1 ? 0 : bar++ === 0 ? -1 : 1;
				return {
					label: s.label,
					stroke,
					fill: stroke,
					width: 0,
					paths: uPlot.paths.bars?.({ size: [share, 64], align, gap: 1 }),
					points: { show: false },
					value: (_, v) => (v == null ? '' : format(v)),
				};
			}),
		],
	};
}

const isCount = (format: (n: number) => string) => format === formatCount;

/** Which categories get a label: every one when they fit, else every k-th, so 90 days' dates do not overlap. */
function categoryTicks(n: number, width: number): number[] {
	const fit = Math.max(2, Math.floor(width / 64));
	const step = Math.ceil(n / fit);
	return Array.from({ length: n }, (_, i) => i).filter((i) => i % step === 0);
}
