CREATE TABLE `whatsapp_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`number_id` text NOT NULL,
	`kind` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`recipient` text NOT NULL,
	`conversation_id` text,
	`message_seq` integer,
	`contact_id` text,
	`campaign_id` text,
	`template` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`wamid` text,
	`error_code` integer,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`sent_at` integer,
	`delivered_at` integer,
	`read_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `whatsapp_deliveries_dedupe` ON `whatsapp_deliveries` (`workspace_id`,`dedupe_key`);--> statement-breakpoint
CREATE UNIQUE INDEX `whatsapp_deliveries_wamid` ON `whatsapp_deliveries` (`wamid`);--> statement-breakpoint
CREATE INDEX `whatsapp_deliveries_conversation` ON `whatsapp_deliveries` (`workspace_id`,`conversation_id`,`message_seq`);--> statement-breakpoint
CREATE INDEX `whatsapp_deliveries_status` ON `whatsapp_deliveries` (`workspace_id`,`status`,`created_at`);--> statement-breakpoint
CREATE INDEX `whatsapp_deliveries_campaign` ON `whatsapp_deliveries` (`workspace_id`,`campaign_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `whatsapp_inbound` (
	`wamid` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`number_id` text NOT NULL,
	`from_wa_id` text NOT NULL,
	`type` text NOT NULL,
	`status` text NOT NULL,
	`failure` text,
	`conversation_id` text,
	`message_id` text,
	`sent_at` integer NOT NULL,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `whatsapp_inbound_conversation` ON `whatsapp_inbound` (`workspace_id`,`conversation_id`);--> statement-breakpoint
CREATE TABLE `whatsapp_numbers` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`phone_number_id` text NOT NULL,
	`business_account_id` text NOT NULL,
	`display_phone_number` text,
	`access_token_sealed` text NOT NULL,
	`app_secret_sealed` text NOT NULL,
	`verify_token_hash` text NOT NULL,
	`graph_url` text NOT NULL,
	`graph_version` text NOT NULL,
	`messages_per_second` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `whatsapp_numbers_phone_number_id` ON `whatsapp_numbers` (`phone_number_id`);--> statement-breakpoint
CREATE INDEX `whatsapp_numbers_workspace` ON `whatsapp_numbers` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `whatsapp_windows` (
	`number_id` text NOT NULL,
	`wa_id` text NOT NULL,
	`workspace_id` text NOT NULL,
	`last_inbound_at` integer NOT NULL,
	PRIMARY KEY(`number_id`, `wa_id`)
);
--> statement-breakpoint
ALTER TABLE `contacts` ADD `whatsapp_id` text;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_workspace_whatsapp` ON `contacts` (`workspace_id`,`whatsapp_id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `ctwa_clid` text;--> statement-breakpoint
ALTER TABLE `conversations` ADD `ad_referral` text;