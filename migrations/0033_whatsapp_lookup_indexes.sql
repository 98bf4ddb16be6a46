DROP INDEX `whatsapp_inbound_conversation`;--> statement-breakpoint
CREATE INDEX `whatsapp_inbound_conversation` ON `whatsapp_inbound` (`workspace_id`,`conversation_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `whatsapp_deliveries_sweep` ON `whatsapp_deliveries` (`status`,`updated_at`);