/**
 * What may start a bot run: its own trigger (a new conversation, a keyword, a deal's stage), an operator
 * (`manual`), or an automation rule's `start_bot` action (`rule`).
 */
export const BOT_RUN_TRIGGERS = ['new_conversation', 'keyword', 'manual', 'deal_stage', 'rule'] as const;
export type BotRunTrigger = (typeof BOT_RUN_TRIGGERS)[number];
