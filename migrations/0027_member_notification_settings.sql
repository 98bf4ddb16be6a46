CREATE TABLE `member_notification_settings` (
	`operator_id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`assigned_while_offline` integer NOT NULL,
	`unanswered` integer NOT NULL,
	`unanswered_after_minutes` integer NOT NULL,
	`mentions` integer NOT NULL,
	`rule_notifications` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `member_notification_settings_unanswered` ON `member_notification_settings` (`unanswered`,`workspace_id`);