/**
 * The problems the API named in the builder's draft (a 422 to a save, a simulation or a test run), kept by step
 * id so they stay on their node and field while the draft is edited, and dropped for a step once it changes.
 */
import { useMemo, useState } from 'preact/hooks';
import { ApiError } from '../../api/client';
import { definitionProblems, type StepProblems } from './graph';
import type { Definition } from './schema';

/** The API's problems with the draft, by step id (and field path inside it), and those outside any step. */
export interface Problems {
	steps: Map<string, Map<string, string>>;
	document: string[];
}
const NO_PROBLEMS: Problems = { steps: new Map(), document: [] };

/** A 422's problems, named by index in the definition that was sent, moved to that definition's step ids. */
function problemsIn(found: StepProblems, sent: Definition): Problems {
	const steps = new Map<string, Map<string, string>>();
	for (const [index, fields] of found.steps) {
		const stepId = sent.steps[index]?.id;
		if (stepId) steps.set(stepId, fields);
	}
	return { steps, document: found.document };
}

/**
 * The draft's problems: `refusedFor(error, sent)` takes a 422's for the definition sent, `settle` drops a step's
 * once it is edited or renamed, `clear` all of them after an answer without any; `counts` by step, for the nodes.
 */
export function useDraftProblems() {
	const [problems, setProblems] = useState<Problems>(NO_PROBLEMS);
	const counts = useMemo(
		() => new Map([...problems.steps].map(([stepId, fields]) => [stepId, fields.size])),
		[problems],
	);
	/** A step edited or renamed: its problems were the old draft's (their list indices may have moved). */
	const settle = (stepId: string, renamedTo?: string) =>
		setProblems((current) => {
			const fields = current.steps.get(stepId);
			if (!fields) return current;
			const steps = new Map(current.steps);
			steps.delete(stepId);
			if (renamedTo) steps.set(renamedTo, fields);
			return { ...current, steps };
		});
	const refusedFor = (error: unknown, sent: Definition) => {
		if (error instanceof ApiError && error.status === 422)
			setProblems(problemsIn(definitionProblems(error.message), sent));
	};
	return { problems, counts, settle, refusedFor, clear: () => setProblems(NO_PROBLEMS) };
}
