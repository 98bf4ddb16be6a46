CREATE TABLE `canned_replies` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`shortcut` text NOT NULL,
	`title` text,
	`text` text NOT NULL,
	`author_id` text NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX `canned_replies_shortcut` ON `canned_replies` (`workspace_id`,`shortcut`);--> statement-breakpoint
CREATE INDEX `canned_replies_author` ON `canned_replies` (`workspace_id`,`author_id`);--> statement-breakpoint
ALTER TABLE `messages` ADD `private` integer DEFAULT false NOT NULL;