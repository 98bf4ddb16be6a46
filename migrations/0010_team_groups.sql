CREATE TABLE `groups` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`created_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `groups_workspace_name` ON `groups` (`workspace_id`,`name`);--> statement-breakpoint
CREATE TABLE `operator_groups` (
	`workspace_id` text NOT NULL,
	`operator_id` text NOT NULL,
	`group_id` text NOT NULL,
	PRIMARY KEY(`operator_id`, `group_id`),
	FOREIGN KEY (`operator_id`) REFERENCES `operators`(`id`) ON UPDATE no action ON DELETE no action,
	FOREIGN KEY (`group_id`) REFERENCES `groups`(`id`) ON UPDATE no action ON DELETE no action
);
--> statement-breakpoint
CREATE INDEX `operator_groups_group` ON `operator_groups` (`group_id`);--> statement-breakpoint
ALTER TABLE `operators` ADD `capacity` integer;--> statement-breakpoint
ALTER TABLE `operators` ADD `disabled_at` integer;--> statement-breakpoint
CREATE INDEX `conversations_group_activity` ON `conversations` (`workspace_id`,`group_id`,`last_activity_at`,`id`);