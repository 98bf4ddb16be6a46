/**
 * The flow canvas (React Flow, `@xyflow/react`, through preact/compat): a node per step with a handle per
 * outlet (next, each button choice, each decision branch, default, error paths), an edge per link, and a
 * Start node whose edge is the document's `start`. Dragging from a handle to a node links them; selecting an
 * edge and pressing Delete unlinks it; selecting a node and pressing Delete removes the step. Positions are
 * the canvas's own (laid out on open, kept while editing); everything else comes from the definition.
 */
import {
	Background,
	type Connection,
	Controls,
	type Edge,
	type EdgeChange,
	Handle,
	MarkerType,
	type Node,
	type NodeChange,
	type NodeProps,
	Position,
	ReactFlow,
	ReactFlowProvider,
	useNodesInitialized,
	useReactFlow,
	useUpdateNodeInternals,
} from '@xyflow/react';
import '@xyflow/react/dist/style.css';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { t } from '../../i18n';
import { links, type Position as Point, START } from './graph';
import { type Definition, type DocumentKind, type Outlet, outlets, type Step, typeLabel } from './schema';

export interface StepNodeData extends Record<string, unknown> {
	kind: DocumentKind;
	step: Step;
	outlets: Outlet[];
	isStart: boolean;
	unreachable: boolean;
	problems: number;
	/** On the path a simulation or a run took; `waiting` where it stands. */
	trace: 'passed' | 'waiting' | 'failed' | null;
	/** What the step log says of it (a run's output or error), shown on the node. */
	note: string | null;
	/** The outlets whose link names no step (dangling). */
	missing: string[];
}

/** Whether two nodes' data draw the same: what a step's node shows, compared without its identity. */
function sameData(a: StepNodeData, b: StepNodeData): boolean {
	return (
		a.step === b.step &&
		a.kind === b.kind &&
		a.isStart === b.isStart &&
		a.unreachable === b.unreachable &&
		a.problems === b.problems &&
		a.trace === b.trace &&
		a.note === b.note &&
		a.missing.join(' ') === b.missing.join(' ')
	);
}

/** The words a step shows on its node: its message, question, tag, URL… */
function summary(step: Step): string {
	for (const key of ['text', 'prompt', 'message', 'tag', 'url', 'value', 'reason', 'items', 'name']) {
		const value = step[key];
		if (typeof value === 'string' && value) return value;
	}
	if (step.type === 'delay') return t('builder.delaySeconds', { n: Number(step.seconds) });
	if (Array.isArray(step.branches)) return t('builder.branches', { n: step.branches.length });
	return '';
}

function StepNode({ id, data, selected }: NodeProps<Node<StepNodeData>>) {
	const { step, kind } = data;
	// React Flow measures a node's handles when the node resizes; a button added to a row of outlets may not
	// resize it, so the handles are measured again whenever the outlets change.
	const updateNodeInternals = useUpdateNodeInternals();
	const handles = data.outlets.map((o) => o.handle).join(' ');
	useEffect(() => updateNodeInternals(id), [id, handles, updateNodeInternals]);
	const dangling = data.missing.length > 0;
	const classes = [
		'step-node',
		dangling ? 'dangling' : '',
		selected ? 'selected' : '',
		data.unreachable ? 'unreachable' : '',
		data.problems > 0 ? 'invalid' : '',
		data.trace ? `trace-${data.trace}` : '',
	].join(' ');
	return (
		<div class={classes} data-step={step.id} data-type={step.type}>
			<Handle type="target" position={Position.Top} />
			<div class="step-type">{typeLabel(kind, step.type)}</div>
			<div class="step-title">{step.title || step.id}</div>
			<div class="step-summary">{summary(step)}</div>
			{data.unreachable && <div class="step-flag">{t('builder.unreachable')}</div>}
			{dangling && <div class="step-flag problem">{t('builder.dangling')}</div>}
			{data.problems > 0 && <div class="step-flag problem">{t('builder.problems', { n: data.problems })}</div>}
			{data.note && <div class="step-note">{data.note}</div>}
			<div class="step-outlets">
				{data.outlets.map((outlet) => (
					<div
						key={outlet.handle}
						class={`outlet${outlet.target ? '' : ' open'}${(outlet.required && !outlet.target) || data.missing.includes(outlet.handle) ? ' missing' : ''}`}
						data-outlet={outlet.handle}
					>
						<span>{outletLabel(outlet)}</span>
						<Handle type="source" position={Position.Bottom} id={outlet.handle} />
					</div>
				))}
			</div>
		</div>
	);
}

function outletLabel(outlet: Outlet): string {
	if (outlet.handle.startsWith('choices.') || outlet.handle.startsWith('buttons.')) return outlet.label;
	if (outlet.handle.startsWith('branches.')) return t('builder.branch', { n: outlet.label });
	return t(`builder.outlet.${outlet.handle}` as 'builder.outlet.next');
}

function StartNode() {
	return (
		<div class="start-node">
			{t('builder.start')}
			<Handle type="source" position={Position.Bottom} id="start" />
		</div>
	);
}

const nodeTypes = { step: StepNode, start: StartNode };

export interface CanvasProps {
	kind: DocumentKind;
	definition: Definition;
	positions: Map<string, Point>;
	onMove: (id: string, position: Point) => void;
	selected: string | null;
	onSelect: (id: string | null) => void;
	onConnect: (source: string, handle: string, target: string) => void;
	/**
	 * What the Delete key removed, in one call: the steps, and the links that were selected on their own (the
	 * links of a removed step are the step's to settle, as the panel's Delete does).
	 */
	onRemove: (stepIds: string[], unlinked: Array<{ source: string; handle: string }>) => void;
	reached: Set<string>;
	problemCounts: Map<string, number>;
	trace: Map<string, { state: 'passed' | 'waiting' | 'failed'; note: string | null }>;
	traceEdges: Set<string>;
	dark: boolean;
	/** A step to bring into view (one just added), with a counter so the same step can be asked for again. */
	reveal: { id: string; n: number } | null;
	/** Counts "Tidy up"s: each fits the whole flow in view once laid out. */
	fit: number;
	/** A run being looked at: nothing can be linked, unlinked or deleted. */
	readOnly?: boolean;
}

export function Canvas(props: CanvasProps) {
	return (
		<ReactFlowProvider>
			<Flow {...props} />
		</ReactFlowProvider>
	);
}

function Flow(props: CanvasProps) {
	const flow = useReactFlow();
	useEffect(() => {
		const at = props.reveal && props.positions.get(props.reveal.id);
		if (at) void flow.setCenter(at.x + 120, at.y + 60, { zoom: flow.getZoom(), duration: 200 });
	}, [props.reveal]);
	useEffect(() => {
		if (props.fit > 0) requestAnimationFrame(() => void flow.fitView({ maxZoom: 1, duration: 200 }));
	}, [props.fit]);
	// The whole flow in view once its nodes first have their sizes (the `fitView` prop can run before).
	const initialized = useNodesInitialized();
	const fitted = useRef(false);
	useEffect(() => {
		if (!initialized || fitted.current) return;
		fitted.current = true;
		void flow.fitView({ maxZoom: 1 });
	}, [initialized]);
	const { kind, definition } = props;
	// An edit changes one step: the other nodes keep their objects, so React Flow redraws only that one (a bot of
	// 200 steps would otherwise redraw them all at every key typed in a form).
	const kept = useRef(new Map<string, Node<StepNodeData>>());
	const drawn = useMemo<Node[]>(() => {
		const start: Node = {
			id: START,
			type: 'start',
			position: props.positions.get(START) ?? { x: 0, y: 0 },
			data: {},
			deletable: false,
			selectable: false,
		};
		const stepIds = new Set(definition.steps.map((s) => s.id));
		const next = new Map<string, Node<StepNodeData>>();
		for (const step of definition.steps) {
			const trace = props.trace.get(step.id);
			const before = kept.current.get(step.id);
			const stepOutlets = before?.data.step === step ? before.data.outlets : outlets(kind, step);
			const data: StepNodeData = {
				kind,
				step,
				outlets: stepOutlets,
				isStart: definition.start === step.id,
				unreachable: !props.reached.has(step.id),
				problems: props.problemCounts.get(step.id) ?? 0,
				trace: trace?.state ?? null,
				note: trace?.note ?? null,
				missing: stepOutlets.filter((o) => o.target && !stepIds.has(o.target)).map((o) => o.handle),
			};
			const position = props.positions.get(step.id) ?? { x: 0, y: 0 };
			const selected = props.selected === step.id;
			next.set(
				step.id,
				before && sameData(before.data, data) && before.position === position && before.selected === selected
					? before
					: {
							id: step.id,
							type: 'step',
							position,
							data,
							selected,
							ariaLabel: `${typeLabel(kind, step.type)}: ${step.title || step.id}`,
						},
			);
		}
		kept.current = next;
		return [start, ...next.values()];
	}, [kind, definition, props.positions, props.selected, props.reached, props.problemCounts, props.trace]);
	// React Flow measures each node and reports its size as a change; the sizes are kept here and put on the nodes
	// as they are drawn, in the same render as an edit (a state synced in an effect would cost frames per key).
	// A node drawn the same stays the very object React Flow holds.
	const sizes = useRef(new Map<string, { width: number; height: number }>());
	const [sized, setSized] = useState(0);
	const held = useRef(new Map<string, Node>());
	const nodes = useMemo(() => {
		void sized;
		const next = drawn.map((n) => {
			const size = sizes.current.get(n.id);
			const old = held.current.get(n.id);
			if (
				old &&
				old.data === n.data &&
				old.position === n.position &&
				old.selected === n.selected &&
				old.measured === size
			)
				return old;
			return size ? { ...n, measured: size } : n;
		});
		held.current = new Map(next.map((n) => [n.id, n]));
		return next;
	}, [drawn, sized]);
	const [selectedEdge, setSelectedEdge] = useState<string | null>(null);
	const edges = useMemo<Edge[]>(
		() =>
			links(kind, definition)
				.filter((link) => !link.dangling)
				.map((link) => ({
					id: link.id,
					source: link.source,
					sourceHandle: link.handle,
					target: link.target,
					selected: selectedEdge === link.id,
					animated: props.traceEdges.has(link.id),
					className: props.traceEdges.has(link.id) ? 'traced' : undefined,
					markerEnd: { type: MarkerType.ArrowClosed },
					ariaLabel: t('builder.edgeLabel', {
						from: link.source === START ? t('builder.start') : link.source,
						to: link.target,
					}),
				})),
		[kind, definition, selectedEdge, props.traceEdges],
	);
	const onNodesChange = (changes: NodeChange[]) => {
		for (const change of changes) {
			if (change.type === 'position' && change.position) props.onMove(change.id, change.position);
		}
		// One click selects a node and deselects another in one batch, in either order: the batch's outcome counts.
		const selects = changes.filter((c) => c.type === 'select');
		const chosen = selects.find((c) => c.selected);
		if (chosen) props.onSelect(chosen.id === START ? null : chosen.id);
		else if (selects.some((c) => c.id === props.selected)) props.onSelect(null);
		let resized = false;
		for (const change of changes) {
			if (change.type === 'dimensions' && change.dimensions) {
				sizes.current.set(change.id, change.dimensions);
				resized = true;
			}
		}
		if (resized) setSized((n) => n + 1);
	};
	const onEdgesChange = (changes: EdgeChange[]) => {
		for (const change of changes) {
			if (change.type === 'select') setSelectedEdge(change.selected ? change.id : null);
		}
	};
	const onDelete = ({ nodes: gone, edges: cut }: { nodes: Node[]; edges: Edge[] }) => {
		const stepIds = gone.map((n) => n.id).filter((id) => id !== START);
		const removed = new Set(stepIds);
		const unlinked = cut
			.filter((edge) => !removed.has(edge.source) && !removed.has(edge.target))
			.map((edge) => ({ source: edge.source, handle: edge.sourceHandle ?? '' }));
		props.onRemove(stepIds, unlinked);
	};
	const onConnect = (connection: Connection) => {
		if (connection.target === START || !connection.sourceHandle) return;
		props.onConnect(connection.source, connection.sourceHandle, connection.target);
	};
	return (
		<ReactFlow
			nodes={nodes}
			edges={edges}
			nodeTypes={nodeTypes}
			onNodesChange={onNodesChange}
			onEdgesChange={onEdgesChange}
			onConnect={onConnect}
			onDelete={onDelete}
			fitView
			fitViewOptions={{ maxZoom: 1 }}
			minZoom={0.2}
			maxZoom={1.5}
			deleteKeyCode={props.readOnly ? null : ['Delete', 'Backspace']}
			nodesConnectable={!props.readOnly}
			colorMode={props.dark ? 'dark' : 'light'}
			proOptions={{ hideAttribution: true }}
		>
			<Background />
			<Controls />
		</ReactFlow>
	);
}
