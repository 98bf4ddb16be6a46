CREATE TABLE `event_outbox` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`event` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `events` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`type` text NOT NULL,
	`occurred_at` integer NOT NULL,
	`payload` text NOT NULL,
	`recorded_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `events_workspace_time` ON `events` (`workspace_id`,`occurred_at`);--> statement-breakpoint
CREATE TABLE `visitor_sessions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text,
	`origin` text,
	`created_at` integer NOT NULL,
	`last_seen_at` integer NOT NULL,
	`ended_at` integer,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `visitor_sessions_contact` ON `visitor_sessions` (`workspace_id`,`contact_id`);--> statement-breakpoint
ALTER TABLE `contacts` ADD `external_id` text;--> statement-breakpoint
ALTER TABLE `contacts` ADD `verified_at` integer;--> statement-breakpoint
ALTER TABLE `contacts` ADD `claimed_email` text;--> statement-breakpoint
ALTER TABLE `contacts` ADD `claimed_phone` text;--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_workspace_external_id` ON `contacts` (`workspace_id`,`external_id`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `start_key` text;--> statement-breakpoint
CREATE UNIQUE INDEX `conversations_start_key` ON `conversations` (`workspace_id`,`start_key`);--> statement-breakpoint
ALTER TABLE `workspaces` ADD `identity_secret_version` integer;