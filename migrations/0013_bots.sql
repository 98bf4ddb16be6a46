CREATE TABLE `bot_versions` (
	`workspace_id` text NOT NULL,
	`bot_id` text NOT NULL,
	`version` integer NOT NULL,
	`definition` text NOT NULL,
	`published_by` text,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`bot_id`, `version`),
	FOREIGN KEY (`bot_id`) REFERENCES `bots`(`id`) ON UPDATE no action ON DELETE cascade
);
--> statement-breakpoint
CREATE TABLE `bots` (
	`id` text PRIMARY KEY NOT NULL,
	`workspace_id` text NOT NULL,
	`name` text NOT NULL,
	`enabled` integer NOT NULL,
	`trigger` text NOT NULL,
	`keywords` text NOT NULL,
	`stage_id` text,
	`channels` text,
	`priority` integer NOT NULL,
	`draft` text NOT NULL,
	`published_version` integer,
	`last_version` integer NOT NULL,
	`created_at` integer NOT NULL,
	`updated_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `bots_workspace_trigger` ON `bots` (`workspace_id`,`trigger`);--> statement-breakpoint
CREATE INDEX `bots_workspace_name` ON `bots` (`workspace_id`,`name`,`id`);