/** The words of Settings › Widget, Business hours, Team and Webhooks. */
export const en = {};

export const pt: Partial<Record<keyof typeof en, string>> = {};
