CREATE TABLE `campaign_recipients` (
	`workspace_id` text NOT NULL,
	`campaign_id` text NOT NULL,
	`contact_id` text NOT NULL,
	`batch` integer NOT NULL,
	`status` text NOT NULL,
	`claimed_until` integer,
	`error` text,
	`conversation_id` text,
	`message_id` text,
	`sent_at` integer,
	`replied_at` integer,
	`reply_conversation_id` text,
	PRIMARY KEY(`campaign_id`, `contact_id`),
	FOREIGN KEY (`campaign_id`) REFERENCES `campaigns`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `campaign_recipients_batch` ON `campaign_recipients` (`campaign_id`,`batch`,`status`);--> statement-breakpoint
CREATE INDEX `campaign_recipients_status` ON `campaign_recipients` (`campaign_id`,`status`);--> statement-breakpoint
CREATE INDEX `campaign_recipients_contact` ON `campaign_recipients` (`workspace_id`,`contact_id`,`sent_at`);--> statement-breakpoint
CREATE TABLE `campaigns` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`template` text NOT NULL,
	`audience` text NOT NULL,
	`channel` text NOT NULL,
	`status` text NOT NULL,
	`send_at` integer,
	`targeted` integer DEFAULT 0 NOT NULL,
	`created_by` text,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL,
	`started_at` integer,
	`finished_at` integer
);
--> statement-breakpoint
CREATE INDEX `campaigns_workspace_created` ON `campaigns` (`workspace_id`,`created_at`,`id`);--> statement-breakpoint
CREATE INDEX `campaigns_due` ON `campaigns` (`status`,`send_at`);--> statement-breakpoint
ALTER TABLE `conversations` ADD `first_response_at` integer;--> statement-breakpoint
-- Conversations from before the column: their first operator message, from the messages D1 holds.
UPDATE `conversations` SET `first_response_at` = (SELECT MIN(m.`created_at`) FROM `messages` m WHERE m.`conversation_id` = `conversations`.`id` AND m.`author_kind` = 'operator');--> statement-breakpoint
ALTER TABLE `conversations` ADD `ad_click` text GENERATED ALWAYS AS (CASE WHEN gclid IS NOT NULL AND gclid != '' THEN 'search' WHEN fbclid IS NOT NULL AND fbclid != '' THEN 'social' ELSE 'none' END) VIRTUAL;--> statement-breakpoint
CREATE INDEX `conversations_report` ON `conversations` (`workspace_id`,`created_at`,`status`,`channel`,`assignee_id`,`group_id`,`ad_click`,`utm_source`,`utm_medium`,`utm_campaign`,`first_response_at`,`status_changed_at`);--> statement-breakpoint
CREATE INDEX `messaging_handoffs_created` ON `messaging_handoffs` (`workspace_id`,`created_at`);