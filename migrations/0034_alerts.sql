CREATE TABLE `push_subscriptions` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`endpoint` text NOT NULL,
	`p256dh` text NOT NULL,
	`auth` text NOT NULL,
	`origin` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `push_subscriptions_endpoint` ON `push_subscriptions` (`workspace_id`,`endpoint`);--> statement-breakpoint
CREATE INDEX `push_subscriptions_operator` ON `push_subscriptions` (`workspace_id`,`operator_id`);--> statement-breakpoint
ALTER TABLE `member_notification_settings` ADD `alert_new_conversation` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `member_notification_settings` ADD `alert_assigned` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `member_notification_settings` ADD `alert_message` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `member_notification_settings` ADD `alert_mention` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `member_notification_settings` ADD `alert_rule` integer DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE `member_notification_settings` ADD `alert_sound` integer DEFAULT false NOT NULL;--> statement-breakpoint
CREATE INDEX `conversations_unread` ON `conversations` (`workspace_id`,`assignee_id`) WHERE "conversations"."unread_by_operators" > 0;