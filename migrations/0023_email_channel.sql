CREATE TABLE `email_addresses` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`address` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `email_addresses_address` ON `email_addresses` (`address`);--> statement-breakpoint
CREATE INDEX `email_addresses_workspace` ON `email_addresses` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `email_settings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`sender_name` text,
	`sender_address` text,
	`reply_domain` text,
	`continuation_enabled` integer DEFAULT true NOT NULL,
	`continuation_delay_seconds` integer DEFAULT 120 NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `inbound_mails` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text,
	`conversation_id` text,
	`parley_message_id` text,
	`raw_key` text NOT NULL,
	`raw_size` integer NOT NULL,
	`envelope_from` text NOT NULL,
	`envelope_to` text NOT NULL,
	`header_message_id` text,
	`subject` text,
	`kind` text NOT NULL,
	`authentication` text,
	`possibly_forged` integer DEFAULT false NOT NULL,
	`status` text NOT NULL,
	`failure` text,
	`received_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `inbound_mails_workspace` ON `inbound_mails` (`workspace_id`,`received_at`);--> statement-breakpoint
CREATE INDEX `inbound_mails_conversation` ON `inbound_mails` (`conversation_id`);--> statement-breakpoint
CREATE TABLE `mail_deliveries` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`conversation_id` text,
	`kind` text NOT NULL,
	`dedupe_key` text NOT NULL,
	`recipient` text NOT NULL,
	`first_seq` integer,
	`last_seq` integer,
	`campaign_id` text,
	`contact_id` text,
	`operator_id` text,
	`status` text NOT NULL,
	`attempts` integer DEFAULT 0 NOT NULL,
	`header_message_id` text,
	`provider_message_id` text,
	`error` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`sent_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `mail_deliveries_dedupe` ON `mail_deliveries` (`workspace_id`,`dedupe_key`);--> statement-breakpoint
CREATE INDEX `mail_deliveries_conversation` ON `mail_deliveries` (`conversation_id`,`created_at`);--> statement-breakpoint
CREATE INDEX `mail_deliveries_workspace` ON `mail_deliveries` (`workspace_id`,`created_at`);--> statement-breakpoint
CREATE TABLE `mail_threads` (
	`workspace_id` text NOT NULL,
	`message_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`workspace_id`, `message_id`)
);
--> statement-breakpoint
CREATE INDEX `mail_threads_conversation` ON `mail_threads` (`conversation_id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `email_failing_at` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `email_failure` text;--> statement-breakpoint
ALTER TABLE `contacts` ADD `continuation_opt_out_at` integer;