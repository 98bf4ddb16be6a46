/** The words of contacts, deals and tasks. */
export const en = {};

export const pt: Partial<Record<keyof typeof en, string>> = {};
