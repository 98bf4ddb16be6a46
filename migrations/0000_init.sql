CREATE TABLE `api_tokens` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`token_hash` text NOT NULL,
	`hint` text NOT NULL,
	`created_at` integer NOT NULL,
	`revoked_at` integer,
	`replaced_by` text,
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_token_hash_unique` ON `api_tokens` (`token_hash`);--> statement-breakpoint
CREATE UNIQUE INDEX `api_tokens_one_active` ON `api_tokens` (`operator_id`) WHERE revoked_at IS NULL;--> statement-breakpoint
CREATE TABLE `contact_tags` (
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`tag_id` text NOT NULL,
	PRIMARY KEY(`contact_id`, `tag_id`),
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `contacts` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text,
	`email` text,
	`phone` text,
	`custom_fields` text NOT NULL,
	`first_origin` text,
	`last_origin` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_workspace_email` ON `contacts` (`workspace_id`,`email`);--> statement-breakpoint
CREATE UNIQUE INDEX `contacts_workspace_phone` ON `contacts` (`workspace_id`,`phone`);--> statement-breakpoint
CREATE TABLE `conversation_tags` (
	`workspace_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`tag_id` text NOT NULL,
	PRIMARY KEY(`conversation_id`, `tag_id`),
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`tag_id`) REFERENCES `tags`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conversation_tags_tag` ON `conversation_tags` (`tag_id`,`conversation_id`);--> statement-breakpoint
CREATE TABLE `conversations` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`assignee_id` text,
	`group_id` text,
	`utm_source` text,
	`utm_medium` text,
	`utm_campaign` text,
	`utm_content` text,
	`utm_term` text,
	`gclid` text,
	`fbclid` text,
	`landing_url` text,
	`referrer` text,
	`last_message_seq` integer DEFAULT 0 NOT NULL,
	`unread_by_operators` integer DEFAULT 0 NOT NULL,
	`unread_by_contact` integer DEFAULT 0 NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`last_message_at` integer,
	`last_activity_at` integer NOT NULL,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `conversations_activity` ON `conversations` (`workspace_id`,`last_activity_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_status_activity` ON `conversations` (`workspace_id`,`status`,`last_activity_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_assignee_activity` ON `conversations` (`workspace_id`,`assignee_id`,`last_activity_at`,`id`);--> statement-breakpoint
CREATE INDEX `conversations_contact` ON `conversations` (`workspace_id`,`contact_id`);--> statement-breakpoint
CREATE TABLE `deals` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`funnel_id` text NOT NULL,
	`stage_id` text NOT NULL,
	`contact_id` text,
	`owner_id` text,
	`name` text NOT NULL,
	`value_cents` integer,
	`currency` text,
	`status` text NOT NULL,
	`custom_fields` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	FOREIGN KEY (`funnel_id`) REFERENCES `funnels`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`stage_id`) REFERENCES `stages`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`contact_id`) REFERENCES `contacts`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `deals_workspace_stage` ON `deals` (`workspace_id`,`stage_id`);--> statement-breakpoint
CREATE TABLE `funnels` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `inbound_webhooks` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`scenario_id` text,
	`enabled` integer NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `messages` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`conversation_id` text NOT NULL,
	`seq` integer NOT NULL,
	`author_kind` text NOT NULL,
	`author_id` text,
	`body` text NOT NULL,
	`attachments` text NOT NULL,
	`client_message_id` text,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`conversation_id`) REFERENCES `conversations`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `messages_conversation_seq` ON `messages` (`conversation_id`,`seq`);--> statement-breakpoint
CREATE UNIQUE INDEX `messages_conversation_client_id` ON `messages` (`conversation_id`,`client_message_id`);--> statement-breakpoint
CREATE TABLE `operators` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`email` text NOT NULL,
	`name` text NOT NULL,
	`permissions` text NOT NULL,
	`groups` text NOT NULL,
	`created_at` integer NOT NULL,
	FOREIGN KEY (`workspace_id`) REFERENCES `workspaces`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE UNIQUE INDEX `operators_workspace_email` ON `operators` (`workspace_id`,`email`);--> statement-breakpoint
CREATE TABLE `stages` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`funnel_id` text NOT NULL,
	`name` text NOT NULL,
	`position` integer NOT NULL,
	FOREIGN KEY (`funnel_id`) REFERENCES `funnels`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE TABLE `tags` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `tags_workspace_name` ON `tags` (`workspace_id`,`name`);--> statement-breakpoint
CREATE TABLE `widget_settings` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`settings` text NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE TABLE `workflow_runs` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`webhook_id` text NOT NULL,
	`scenario_id` text,
	`status` text NOT NULL,
	`input` text NOT NULL,
	`idempotency_key` text,
	`created_at` integer NOT NULL,
	`dequeued_at` integer
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workflow_runs_webhook_key` ON `workflow_runs` (`webhook_id`,`idempotency_key`);--> statement-breakpoint
CREATE TABLE `workspaces` (
	`id` text PRIMARY KEY NOT NULL,
	`slug` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `workspaces_slug_unique` ON `workspaces` (`slug`);