CREATE TABLE `directory_routes` (
	`kind` text NOT NULL,
	`key` text NOT NULL,
	`workspace_id` text NOT NULL,
	`created_at` integer NOT NULL,
	PRIMARY KEY(`kind`, `key`)
);
--> statement-breakpoint
CREATE INDEX `directory_routes_workspace` ON `directory_routes` (`workspace_id`);--> statement-breakpoint
CREATE TABLE `workspace_shards` (
	`workspace_id` text PRIMARY KEY NOT NULL,
	`shard` text NOT NULL,
	`placed_at` integer NOT NULL
);
--> statement-breakpoint
CREATE INDEX `workspace_shards_shard` ON `workspace_shards` (`shard`);