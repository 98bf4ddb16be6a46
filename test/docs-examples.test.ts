/**
 * Every shell example in README.md and docs/ runs here against the app, as written, so none can drift from
 * what the API does. Within a document the blocks run in order, as a reader pastes them: an id one block
 * keeps in a variable feeds the next. Each curl must succeed, or answer the status its line's comment names
 * (`# 409 …`). A block that cannot run here (it starts a server, or is the test suite) says why in its info
 * string (```` ```sh no-run: … ````); any other command the shell runner does not know fails its document.
 */
import { createExecutionContext, waitOnExecutionContext } from 'cloudflare:test';
import { env } from 'cloudflare:workers';
import { and, eq, isNull } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import readme from '../README.md?raw';
import { hashPassword } from '../src/auth/passwords';
import { apiTokens, operatorPasswords, operators, workspaces } from '../src/db/schema';
import { newTokenRow } from '../src/domain/team/tokens';
import worker from '../src/index';
import { newId } from '../src/lib/ids';
import { shellBlocks } from './docs/blocks';
import { parseShell } from './docs/shell-parse';
import { type Host, type Seeded, Shell } from './docs/shell-run';
import { db } from './factories';

const DOCS: Record<string, string> = {
	'README.md': readme,
	...Object.fromEntries(
		Object.entries(
			import.meta.glob<string>(['../docs/**/*.md', '!../docs/WEBHOOK_EVENTS.md'], {
				query: '?raw',
				import: 'default',
				eager: true,
			}),
		).map(([path, text]) => [path.slice(3), text]),
	),
};

/**
 * The app as `npm run dev` serves it, with the production rate limit (wrangler.toml's 120 a minute, not the
 * tests' 40): the examples are a reader's walk, which each guide keeps within one token's budget.
 */
const DEV_ENV = { ...env, RATE_LIMIT_PER_MINUTE: '120' };

const seeded = new Map<string, { workspaceId: string; operatorId: string; email: string }>();

/**
 * `npm run seed -- --workspace <slug>` (scripts/seed.mjs), done in the test's D1: the workspace and its admin
 * when missing, then a fresh token (the previous one revoked) and a fresh console password.
 */
async function seed(slug: string): Promise<Seeded> {
	const now = Date.now();
	let admin = seeded.get(slug);
	if (!admin) {
		const workspaceId = newId('ws', now);
		const operatorId = newId('op', now);
		const email = `admin@${slug}.local`;
		await db.insert(workspaces).values({ id: workspaceId, slug, name: slug, createdAt: now });
		await db
			.insert(operators)
			.values({ id: operatorId, workspaceId, email, name: 'Admin', permissions: ['admin'], createdAt: now });
		admin = { workspaceId, operatorId, email };
		seeded.set(slug, admin);
	}
	const { workspaceId, operatorId, email } = admin;
	const { token, row } = await newTokenRow(workspaceId, operatorId, now);
	await db
		.update(apiTokens)
		.set({ revokedAt: now, replacedBy: row.id })
		.where(and(eq(apiTokens.operatorId, operatorId), isNull(apiTokens.revokedAt)));
	await db.insert(apiTokens).values(row);
	const password = crypto.randomUUID();
	const hash = await hashPassword(password);
	await db
		.insert(operatorPasswords)
		.values({ operatorId, workspaceId, hash, updatedAt: now })
		.onConflictDoUpdate({ target: operatorPasswords.operatorId, set: { hash, updatedAt: now } });
	return { workspaceId, token, email, password, baseUrl: 'http://localhost:8787' };
}

const host: Host = {
	async fetch(request) {
		const ctx = createExecutionContext();
		const response = await worker.fetch(request, DEV_ENV, ctx);
		await waitOnExecutionContext(ctx);
		return response;
	},
	seed,
};

/** GitHub's anchor for a heading: lower case, punctuation dropped, each space a hyphen. */
function anchorOf(heading: string): string {
	return heading
		.toLowerCase()
		.replace(/[^\p{L}\p{N}\s_-]/gu, '')
		.replace(/\s/g, '-');
}

/** The anchors of a document: one per heading (a repeated one gets -1, -2…, as on GitHub). */
function anchorsOf(markdown: string): Set<string> {
	const anchors = new Set<string>();
	const withoutCode = markdown.replace(/^\s*```[\s\S]*?^\s*```/gm, '');
	for (const [, heading = ''] of withoutCode.matchAll(/^#{1,6} (.+)$/gm)) {
		const anchor = anchorOf(heading);
		let unique = anchor;
		for (let n = 1; anchors.has(unique); n++) unique = `${anchor}-${n}`;
		anchors.add(unique);
	}
	return anchors;
}

/** `a/b/../c.md` as `a/c.md`. */
function normalise(path: string): string {
	const parts: string[] = [];
	for (const part of path.split('/')) {
		if (part === '..') parts.pop();
		else if (part !== '.' && part !== '') parts.push(part);
	}
	return parts.join('/');
}

/**
 * Every file a document may link to besides the documents themselves (code, pictures, the API document), by
 * its path from the repository's root: the glob's keys only, nothing is loaded.
 */
const LINKABLE = new Set(
	Object.keys(
		import.meta.glob([
			'../{docs,src,durable-objects,widget,console,tools,scripts,bench,test,migrations}/**/*.{ts,tsx,mjs,png,json,md,sql}',
			'!**/node_modules/**',
		]),
	).map((path) => path.slice(3)),
);

const blocks = Object.entries(DOCS).flatMap(([file, text]) => shellBlocks(file, text));

describe('the shell examples of README.md and docs/', () => {
	it('are each run here, or say why not; every curl is run', () => {
		expect(blocks.length).toBeGreaterThan(0);
		for (const block of blocks) {
			if (block.noRun === undefined) parseShell(block.text, block.line);
			else expect(block.text, `${block.file}:${block.line} has a curl yet is not run`).not.toMatch(/\bcurl\b/);
		}
	});

	it('link to documents and headings that exist', () => {
		const broken: string[] = [];
		for (const [file, text] of Object.entries(DOCS)) {
			const folder = file.includes('/') ? file.slice(0, file.lastIndexOf('/') + 1) : '';
			for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
				if (/^[a-z]+:/.test(target)) continue;
				const [path = '', anchor] = target.split('#');
				const linked = path === '' ? file : normalise(folder + path);
				const document = DOCS[linked];
				// A document's headings are checked too; any other file (code, a picture), by its path.
				if (document === undefined) {
					if (!LINKABLE.has(linked)) broken.push(`${file} -> ${target}`);
				} else if (anchor !== undefined && !anchorsOf(document).has(anchor)) {
					broken.push(`${file} -> ${target}`);
				}
			}
		}
		expect(broken).toEqual([]);
	});

	for (const file of new Set(blocks.filter((b) => b.noRun === undefined).map((b) => b.file))) {
		it(`${file} runs as written, block after block`, { timeout: 180_000 }, async () => {
			const shell = new Shell(host);
			for (const block of blocks.filter((b) => b.file === file && b.noRun === undefined)) {
				try {
					await shell.run(parseShell(block.text, block.line));
				} catch (error) {
					throw new Error(`${file}: ${(error as Error).message}`);
				}
			}
			expect(shell.curls).toBeGreaterThan(0);
		});
	}
});
