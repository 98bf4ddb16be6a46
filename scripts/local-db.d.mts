// Types for local-db.mjs, so the TypeScript browser-test harness can call it.

export interface SeededWorkspace {
	slug: string;
	workspaceId: string;
	operatorId: string;
	/** The admin's sign-in e-mail: `admin@<slug>.local`. */
	email: string;
	token: string;
	/** The admin's console password, fresh on every seed. */
	password: string;
}

export function applyMigrations(persistTo?: string): Promise<void>;
export function query(sql: string, persistTo?: string): Record<string, unknown>[][];
export function executeFile(file: string, persistTo?: string): void;
export function literal(value: unknown): string;
export function seedWorkspace(options?: { slug?: string; persistTo?: string }): Promise<SeededWorkspace>;
export function seedWorkspaces(slugs: string[], persistTo?: string): Promise<SeededWorkspace[]>;
export function ensureDevSecret(): void;
