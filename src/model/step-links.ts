/**
 * Where a step document (a bot, a scenario) keeps its links and its template records, written once for the
 * Worker's checks (src/engines/step-graph.ts) and the console's builders, with no dependency.
 */

/** The step-level fields that hold a link to another step. */
export const LINK_FIELDS = ['next', 'default', 'do', 'onError', 'onNoDeal', 'onNotFound', 'onRetriesExhausted'];

/**
 * The lists whose items link by their `next` (a Data Entry's choices, a decision's branches, a message's
 * buttons). An item may also be a bare string (a button written as its label): it has no link of its own.
 */
export const LINK_LISTS = ['branches', 'choices', 'buttons'];

/** Records whose every value is a template, whatever its key (a custom field or header named `type`). */
export const TEMPLATE_RECORDS = new Set(['custom_fields', 'headers', 'fields', 'values']);
