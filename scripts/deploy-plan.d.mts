// Types for deploy-plan.mjs, so its unit test (TypeScript) can call it.

/** One binding as wrangler's own config reading gives it (`unstable_convertConfigBindingsToStartWorkerBindings`). */
export interface Binding {
	type: string;
	[field: string]: unknown;
}

export interface Migration {
	tag: string;
	new_classes?: string[];
	new_sqlite_classes?: string[];
	deleted_classes?: string[];
	renamed_classes?: { from: string; to: string }[];
	transferred_classes?: { from: string; from_script: string; to: string }[];
}

/** What the plan reads from wrangler.toml (scripts/deploy.mjs builds it with wrangler's own config reading). */
export interface DeployConfig {
	/** The Worker's name. */
	name: string;
	/** Every binding by name. */
	bindings: Record<string, Binding>;
	/** `[[queues.consumers]]`: the queue each consumes and its dead-letter queue. */
	consumers: { queue: string; dead_letter_queue?: string }[];
	/** `[[migrations]]` (Durable Object classes). */
	migrations: Migration[];
	/** `[secrets] required`. */
	requiredSecrets: string[];
}

/** What the account already holds. */
export interface Account {
	/** Whether the Worker has been deployed (its secrets can be listed). */
	workerExists: boolean;
	queues: string[];
	/** D1 database names. */
	databases: string[];
	/** KV namespace titles. */
	kvNamespaces: string[];
	/** The Worker's secret names. */
	secrets: string[];
}

export interface Step {
	/** The wrangler command, without `wrangler`. */
	command: string[];
	/** Secrets to generate and upload with this step (the deploy's `--secrets-file`). */
	secrets: string[];
	/** The config's needs this step meets: `binding NAME`, `queue NAME`, `secret NAME`. */
	covers: string[];
}

export const EMPTY_ACCOUNT: Readonly<Account>;
export const GENERATED_SECRETS: string[];
export function planDeploy(config: DeployConfig, account: Account): { steps: Step[]; problems: string[] };
export function provisioningGaps(config: DeployConfig): string[];
export function parseQueueNames(table: string): string[];
/** D1 database names whose read replication is not "auto" yet (`modes`: name to mode, as `d1 info` reports). */
export function replicationChanges(config: DeployConfig, modes: Record<string, string | undefined>): string[];
