/**
 * What an operator (and so the tokens it generates) may do, written once for the Worker and the console, with
 * no dependency. `admin` implies every other permission.
 */
export const PERMISSIONS = [
	'conversations:read',
	'messages:send',
	'contacts:write',
	'crm:access',
	'reports:view',
	'admin',
] as const;

export type Permission = (typeof PERMISSIONS)[number];

export function hasPermission(granted: readonly string[], needed: Permission): boolean {
	return granted.includes('admin') || granted.includes(needed);
}
